// typescript-eslint's type-checked rules over src, test and bench; Prettier owns the layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-bench/', 'coverage/', 'test-artifacts/', '*.js', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Methods implementing an async port stay async even when this implementation never awaits.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // jest's asymmetric matchers (expect.any, expect.objectContaining) are typed `any`, and
    // `expect(obj.method)` is how jest checks a mock.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
