import { CombinedGraphQLErrors, ServerError } from '@apollo/client';

/** An error as the console shows it: the gateway's message and code, and the fields it names; never a stack. */
export interface Problem {
  message: string;
  code?: string;
  fields?: readonly string[];
}

/** An error the console words itself, with a code as the gateway's are (a websocket's close, say). */
export class CodedError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'CodedError';
  }
}

interface ErrorLike {
  message?: unknown;
  extensions?: { code?: unknown; fields?: unknown } | null;
}

function fromGraphQL(error: ErrorLike): Problem {
  const { code, fields } = error.extensions ?? {};
  return {
    message: typeof error.message === 'string' ? error.message : 'The gateway refused the request',
    code: typeof code === 'string' ? code : undefined,
    fields: Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : undefined,
  };
}

/** The gateway's errors of a failed request (GraphQL errors, or the body of a non-2xx answer), or what stopped it. */
export function problemsOf(error: unknown): Problem[] {
  if (CombinedGraphQLErrors.is(error)) return error.errors.map(fromGraphQL);
  if (ServerError.is(error)) {
    try {
      const body = JSON.parse(error.bodyText) as { errors?: ErrorLike[] };
      if (Array.isArray(body.errors) && body.errors.length > 0) return body.errors.map(fromGraphQL);
    } catch {
      // Not JSON (a proxy's page, say): the status says enough.
    }
    return [{ message: `The gateway answered HTTP ${error.statusCode}`, code: `HTTP_${error.statusCode}` }];
  }
  if (error instanceof CodedError) return [{ message: error.message, code: error.code }];
  if (error instanceof TypeError) return [{ message: 'The gateway could not be reached', code: 'NETWORK_ERROR' }];
  if (error instanceof Error) return [{ message: error.message }];
  return [{ message: 'Something went wrong' }];
}

/** The first error's code, to tell UNAUTHENTICATED from the rest. */
export function codeOf(error: unknown): string | undefined {
  return problemsOf(error)[0]?.code;
}
