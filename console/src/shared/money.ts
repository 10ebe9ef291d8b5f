/**
 * A decimal amount as money, from its text and never through a float: "1000000.5" and "ZMW" give
 * "1,000,000.50 ZMW". Text that is no decimal is shown as it came.
 */
export function formatMoney(amount: string, currency?: string | null): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return currency ? `${amount} ${currency}` : amount;
  const [, sign, whole, fraction = ''] = match;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const text = `${sign}${grouped}.${fraction.padEnd(2, '0')}`;
  return currency ? `${text} ${currency}` : text;
}

/** An account number as the API masks a beneficiary's outside beneficiary(id): its last four digits. */
export function maskAccount(account: string): string {
  if (account.startsWith('*')) return account;
  return account.length <= 4 ? account : `****${account.slice(-4)}`;
}
