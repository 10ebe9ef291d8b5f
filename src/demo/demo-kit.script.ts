/**
 * What the parts of the demo page share, served as /demo/kit.js before them: building elements
 * (server data only ever as textContent), one GraphQL POST with the bearer token, an error explained
 * in one line, and money as people read it. Plain browser JavaScript.
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

  // Formats the decimal text itself, never through a float: 1000000 → "1,000,000.00", exact at any size.
  // Anything that is not a decimal (a typo in an uploaded file, say) is shown as it came.
  function money(amount, currency) {
    const text = String(amount);
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    const shown = match ? match[1] + match[2].replace(/\B(?=(\d{3})+$)/g, ',') + '.' + (match[3] || '').padEnd(2, '0') : text;
    return currency ? shown + ' ' + currency : shown;
  }

  return { element, graphql, problem, money };
})();
`;
