import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Where the gateway serves the console; every screen is a path under it, so a link can be opened in a new tab. */
export const BASE = '/console';

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** Counts the console's own navigations: following the link of the screen one is on opens it afresh. */
let visits = 0;
const current = () => `${visits} ${location.pathname}${location.search}`;

/** The path under /console ("/payouts/abc"), its query string, and which visit this is; redrawn on every navigation. */
export function useLocation(): { path: string; params: URLSearchParams; visit: number } {
  const [visit, href] = useSyncExternalStore(subscribe, current).split(' ');
  const url = new URL(href, location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname;
  return { path: path === '' ? '/' : path, params: url.searchParams, visit: Number(visit) };
}

export function navigate(to: string): void {
  visits += 1;
  history.pushState(null, '', BASE + to);
  for (const listener of listeners) listener();
}

/** An ordinary link that the console follows itself; with a modifier key the browser opens it as any link. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={follow} {...rest} />;
}
