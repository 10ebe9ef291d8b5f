// typescript-eslint's type-checked rules over src, test and bench; Prettier owns the layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'dist-bench/',
      'coverage/',
      'test-artifacts/',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Methods implementing an async port stay async even when this implementation never awaits.
      '@typescript-eslint/require-await': 'off',
      // One message per situation: every GatewayError comes from a named constructor in an errors module.
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='GatewayError']",
          message:
            'Build gateway errors with a constructor from src/disbursements/disbursement.errors.ts (domain), src/graphql/request.errors.ts (transports, quotas, trusted documents) or src/auth/auth.errors.ts (credentials).',
        },
      ],
    },
  },
  {
    files: ['src/disbursements/disbursement.errors.ts', 'src/graphql/request.errors.ts', 'src/auth/auth.errors.ts'],
    rules: { 'no-restricted-syntax': 'off' },
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
