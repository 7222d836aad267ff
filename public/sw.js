importScripts("/sw-notifications.js");

/*
 * The app-shell worker: the installed app opens at once, and offline it opens on a page
 * that says so. It keeps only what is the same for everyone: the offline page (rendered
 * without credentials), the icons and manifest, and Next's content-hashed static files.
 * Nothing else is ever stored: not the chat pages (their HTML holds the chat's turns),
 * not /api/ (exports, attachments, the account's data), not /socket.io/, not share links.
 * So nothing of a chat can be read from this cache by the next person on the device.
 * The rules are an allowlist: a request no rule names goes to the network untouched.
 */

/** The app's version (lib/app-version.ts), given in the registration's URL. */
const VERSION = new URL(self.location.href).searchParams.get("v") || "dev";
const CACHE_PREFIX = "delegate-";
const SHELL_CACHE = `${CACHE_PREFIX}shell-${VERSION}`;
const OFFLINE_URL = "/offline";
/** Shell files besides the offline page; each is served from the cache, then refreshed from the network. */
const SHELL_FILES = ["/manifest.webmanifest", "/icon.svg", "/icon-192.png", "/icon-512.png", "/icon-maskable-512.png", "/favicon.ico"];
/** How long a navigation waits for the network before the offline page is shown instead. */
const NAVIGATION_TIMEOUT_MS = 4000;
/** Next's build output under /_next/static/: named by content, so a stored copy never goes stale. */
const STATIC_PREFIX = "/_next/static/";
/** The static files a page names, as `/_next/static/…` in its tags or `static/…` in its flight data. */
const STATIC_REFERENCE = /static\/(?:chunks|css|media)\/[\w\-.~%@/]+?\.(?:js|css|woff2?)/g;

/** The API (exports, attachments, sign-in callbacks among it) and the socket: always the network's, as it answers. */
const UNTOUCHED = /^\/(?:api|socket\.io)\//;

function isStaticAsset(url) {
  return url.pathname.startsWith(STATIC_PREFIX) && url.search === "";
}

function isShellFile(url) {
  return (url.pathname === OFFLINE_URL || SHELL_FILES.includes(url.pathname)) && url.search === "";
}

/** Whether a cached URL may stay in the shell's cache: the rule the sign-out clean-up applies too. */
function isShellEntry(url) {
  return url.origin === self.location.origin && (isStaticAsset(url) || isShellFile(url));
}

/** Stores a response only when it is a whole same-origin answer. */
async function store(cache, request, response) {
  if (response.ok && response.type === "basic" && !response.redirected) await cache.put(request, response);
}

/**
 * The offline page, fetched without cookies (it is the same for everyone), and the static
 * files it loads, so that it renders and hydrates with no network at all. A static file
 * that fails does not fail the install: only the page itself is required.
 */
async function precache() {
  const cache = await caches.open(SHELL_CACHE);
  const page = await fetch(OFFLINE_URL, { credentials: "omit", cache: "reload" });
  if (!page.ok || page.redirected) throw new Error(`offline page answered ${page.status}`);
  const html = await page.clone().text();
  await cache.put(OFFLINE_URL, page);
  const assets = new Set(Array.from(html.matchAll(STATIC_REFERENCE), (match) => `/_next/${match[0]}`));
  await Promise.all(
    [...SHELL_FILES, ...assets].map(async (path) => {
      try {
        await store(cache, new Request(path, { credentials: "omit" }), await fetch(path, { credentials: "omit", cache: "reload" }));
      } catch {
        // Offline again already, or a name the pattern caught that is not a file: the page still renders.
      }
    }),
  );
}

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== SHELL_CACHE).map((name) => caches.delete(name)));
      await self.clients.claim();
    })(),
  );
});

async function cacheFirst(request) {
  const cache = await caches.open(SHELL_CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  await store(cache, request, response.clone());
  return response;
}

/** Served from the cache at once, refreshed from the network behind it (icons and manifest change without a rename). */
async function staleWhileRevalidate(event) {
  const cache = await caches.open(SHELL_CACHE);
  const hit = await cache.match(event.request);
  const refresh = fetch(event.request).then(async (response) => {
    await store(cache, event.request, response.clone());
    return response;
  });
  if (hit) {
    event.waitUntil(refresh.catch(() => undefined));
    return hit;
  }
  return refresh;
}

/**
 * Network first, never stored: a page's HTML may hold a chat. When the network fails, or
 * has not answered in NAVIGATION_TIMEOUT_MS, the offline page is shown in its place.
 */
async function navigate(request) {
  const network = fetch(request);
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, NAVIGATION_TIMEOUT_MS, null);
  });
  try {
    const response = await Promise.race([network, timeout]);
    if (response) return response;
  } catch {
    // Offline, or the server is unreachable: the shell below.
  } finally {
    clearTimeout(timer);
  }
  const shell = await caches.match(OFFLINE_URL, { cacheName: SHELL_CACHE });
  return shell ?? network;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Not even looked at: an export or attachment may take longer than the navigation's wait to start.
  if (UNTOUCHED.test(url.pathname)) return;
  if (request.mode === "navigate") event.respondWith(navigate(request));
  else if (isStaticAsset(url)) event.respondWith(cacheFirst(request));
  else if (isShellFile(url)) event.respondWith(staleWhileRevalidate(event));
});

/**
 * Sign-out (components/pwa/clear-cached-data.ts): every cache but the shell's goes, and
 * from the shell's anything that is not a shell file, so whatever another script or an
 * older worker stored for the person signing out is gone. Answers with the cache it kept.
 */
async function dropPersonalData() {
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name !== SHELL_CACHE).map((name) => caches.delete(name)));
  const cache = await caches.open(SHELL_CACHE);
  const requests = await cache.keys();
  await Promise.all(requests.filter((request) => !isShellEntry(new URL(request.url))).map((request) => cache.delete(request)));
}

self.addEventListener("message", (event) => {
  if (event.data?.type !== "delegate:sign-out") return;
  const reply = event.ports[0];
  event.waitUntil(
    dropPersonalData().then(
      () => reply?.postMessage({ ok: true, kept: SHELL_CACHE }),
      (error) => reply?.postMessage({ ok: false, message: String(error) }),
    ),
  );
});
