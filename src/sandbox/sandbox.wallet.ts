/** Balances in minor units (ngwee), so debits and refunds never drift the way float sums do. */
const toMinor = (amount: number): number => Math.round(amount * 100);

export const INSUFFICIENT_BALANCE_MESSAGE = 'Transaction failed: insufficient balance in the merchant wallet';

/** One wallet per API key, opened with the same balance, as the third-party mock of the provider keeps it. */
export class Wallets {
  private readonly balances = new Map<string, number>();
  private readonly openingMinor: number;

  constructor(openingBalance: number) {
    this.openingMinor = toMinor(openingBalance);
  }

  /** The balance in major units (e.g. 1234.5), for the JSON answer. */
  balance(apiKey: string): number {
    return this.minor(apiKey) / 100;
  }

  /** Takes the amount when the wallet holds it; false (nothing taken) when it does not. */
  debit(apiKey: string, amount: number): boolean {
    const left = this.minor(apiKey) - toMinor(amount);
    if (left < 0) return false;
    this.balances.set(apiKey, left);
    return true;
  }

  /** Gives back what a failed payout took. */
  refund(apiKey: string, amount: number): void {
    this.balances.set(apiKey, this.minor(apiKey) + toMinor(amount));
  }

  private minor(apiKey: string): number {
    return this.balances.get(apiKey) ?? this.openingMinor;
  }
}
