import { graphql } from '../gql';

/** The cheapest question every reader may ask: answered means the credential (or open access) is accepted. */
export const ACCESS = graphql(`
  query Access {
    payoutAllowance {
      currency
    }
  }
`);
