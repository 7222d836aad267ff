// Replaced by the notifications service worker; the app-shell worker (sw.js) imports it first.
