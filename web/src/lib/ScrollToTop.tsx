import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';

/**
 * Scrolls the page to the top whenever the path or the query changes, unless the URL
 * carries a hash (the browser, or the page itself, scrolls to that anchor instead).
 */
export function ScrollToTop() {
  const { pathname, search, hash } = useLocation();

  useEffect(() => {
    if (hash) return;
    window.scrollTo(0, 0);
    // Only path and query changes count (a hash-only change is not a new page); the
    // hash is read as it is at that moment.
  }, [pathname, search]);

  return null;
}
