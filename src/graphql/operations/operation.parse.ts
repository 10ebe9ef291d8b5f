/**
 * How every transport parses a document: graphql-js's own token limit (GraphQL Armor's Apollo
 * plugin for it answers 500), so a huge document is refused before it costs anything.
 */
export const PARSE_OPTIONS = { maxTokens: 1000 };
