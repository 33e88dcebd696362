// Loaded (blocking, in <head>) only by the pre-rendered `/` (dist/landing.html). That HTML is the
// landing in English for a logged-out visitor; one who chose Spanish or has a cached user would see it
// change when the script runs, so for them #root stays hidden and main.tsx draws the page afresh, as
// without pre-rendering. A script file, not inline: the server's CSP allows only 'self' scripts.
try {
  if (localStorage.getItem('lang') === 'es' || localStorage.getItem('user')) {
    document.documentElement.classList.add('bytx-no-prerender');
  }
} catch {
  // No storage (blocked): the visitor is English and logged out as far as the app can tell.
}
