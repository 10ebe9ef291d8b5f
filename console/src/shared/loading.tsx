import { useEffect, useState } from 'react';

/** Shown for anything slower than a moment: nothing for the first 150 ms, so a quick answer does not flicker. */
export function Loading({ what }: { what: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 150);
    return () => clearTimeout(timer);
  }, []);
  return (
    <p className="loading" role="status" aria-live="polite">
      {shown ? `Loading ${what}…` : ''}
    </p>
  );
}
