/**
 * An id as one part of a Redis key: `:` separates parts and `{}` marks a Cluster hash tag, so both
 * (and `%`, the escape itself) are percent-encoded; distinct ids stay distinct keys.
 */
export const keyPart = (id: string) =>
  id.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
