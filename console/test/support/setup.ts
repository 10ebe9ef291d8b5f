import { cleanup } from '@testing-library/react';

// React's act() warnings are real in a test environment that declares itself one.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  history.replaceState(null, '', '/console/payouts');
});
