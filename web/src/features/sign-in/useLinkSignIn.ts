/** Signs in with the one-time link's code, read once from the URL fragment and dropped from it at once. */
import { useEffect, useRef } from 'react';

export function useLinkSignIn(mutate: (body: { code: string }) => void) {
  const linkCode = useRef<string | null>(null);
  if (linkCode.current === null) {
    linkCode.current = new URLSearchParams(window.location.hash.slice(1)).get('code') ?? '';
  }
  useEffect(() => {
    const code = linkCode.current;
    if (!code) return;
    // The code is spent by this request: drop it from the address bar and the history at once.
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
    linkCode.current = '';
    mutate({ code });
  }, [mutate]);
}
