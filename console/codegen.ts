import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

/**
 * `npm run console:codegen`: typed operations from every graphql() in console/src, against the
 * public schema, and the trusted-documents manifest the gateway can enforce (persisted-documents.json).
 * The __typename transform puts into the manifest the __typename fields Apollo's cache adds, so the
 * text the console sends is the manifest's text exactly.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['console/src/**/*.{ts,tsx}', '!console/src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'console/src/gql/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      documentTransforms: [addTypenameSelectionDocumentTransform],
      config: {
        scalars: { Decimal: 'string', DateTimeISO: 'string' },
        enumsAsTypes: true,
        useTypeImports: true,
        strictScalars: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
      },
    },
  },
};

export default config;
