import { printExecutableGraphQLDocument } from '@graphql-tools/documents';
import type { ASTNode, DocumentNode } from 'graphql';

/**
 * The text of an operation exactly as GraphQL Code Generator wrote it into persisted-documents.json
 * (sorted, one line): a gateway started with TRUSTED_DOCUMENTS pointing there runs it, since it
 * trusts a listed body as it is. Over both transports, so the console works whether the gateway
 * enforces trusted documents or not.
 */
export function printTrusted(node: ASTNode): string {
  return printExecutableGraphQLDocument(node as DocumentNode);
}
