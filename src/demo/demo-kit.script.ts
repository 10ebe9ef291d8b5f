/**
 * What the payout form, dashboard and approvals parts of the demo page share, served as /demo/kit.js
 * before them: building elements (server data only ever as textContent), one GraphQL POST with the bearer
 * token, and an error explained in one line. Plain browser JavaScript.
 */
export const DEMO_KIT_SCRIPT = String.raw`'use strict';

window.DemoKit = (() => {
  function element(tag, text, attributes) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    Object.entries(attributes || {}).forEach(([name, value]) => node.setAttribute(name, value));
    return node;
  }

  async function graphql(token, operationName, query, variables) {
    const headers = { 'content-type': 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    try {
      const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ operationName, query, variables }) });
      return await response.json();
    } catch (error) {
      return { errors: [{ message: String(error), extensions: { code: 'NO_ANSWER' } }] };
    }
  }

  const problem = (body) => {
    const error = body.errors && body.errors[0];
    if (!error) return '';
    const code = error.extensions && error.extensions.code;
    return code === 'UNAUTHENTICATED' ? 'Enter your bearer token above to see this.' : (code || 'ERROR') + ': ' + error.message;
  };

  return { element, graphql, problem };
})();
`;
