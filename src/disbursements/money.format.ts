/** Minor units (cents) as a decimal with exactly two places, as statements and exports show money: 1050 → "10.50". */
export function moneyText(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const cents = Math.abs(Math.round(minor));
  return `${sign}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
