/*
 * Delegate's notifications in the service worker, loaded by /sw.js with importScripts:
 * a Web Push message becomes a notification, a click on one focuses a window of the app
 * at the notification's chat (or opens one), and a page may ask the worker to show one
 * (`{ type: "delegate:notify", notification }`). Plain script: no build step, no imports.
 */
(() => {
  const MAX_TITLE = 200;
  const MAX_BODY = 400;

  /** Only this app's own paths open: a payload naming another origin opens the app's root. */
  function appUrl(url) {
    try {
      const parsed = new URL(typeof url === "string" ? url : "/", self.location.origin);
      return parsed.origin === self.location.origin ? parsed.href : self.location.origin + "/";
    } catch {
      return self.location.origin + "/";
    }
  }

  function text(value, max) {
    return typeof value === "string" ? value.slice(0, max) : "";
  }

  function show(payload) {
    const title = text(payload && payload.title, MAX_TITLE) || "Delegate";
    return self.registration.showNotification(title, {
      body: text(payload && payload.body, MAX_BODY),
      tag: text(payload && payload.tag, 300) || undefined,
      data: { url: appUrl(payload && payload.url) },
      icon: "/icon-192.png",
    });
  }

  self.addEventListener("push", (event) => {
    let payload = null;
    try {
      payload = event.data ? event.data.json() : null;
    } catch {
      payload = null;
    }
    // A push asks to be shown (userVisibleOnly): even an unreadable one says something.
    event.waitUntil(show(payload || { title: "Delegate", body: "Something in a chat needs a look.", url: "/" }));
  });

  /**
   * A window already on this chat is brought forward and asked to go to the panel (a
   * message, so the page seeks without reloading, and a window the worker does not
   * control follows too); else any window of the app goes there; else a new one opens.
   */
  async function openAt(url) {
    const target = new URL(appUrl(url));
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const client =
      windows.find((w) => new URL(w.url).pathname === target.pathname) || windows.find((w) => new URL(w.url).origin === target.origin);
    if (!client) return self.clients.openWindow(target.href);
    // Another page: the worker moves the window itself (a page still loading could miss a
    // message). The same page: it is asked to seek the panel, without a reload.
    let moved = null;
    if (new URL(client.url).pathname !== target.pathname) {
      try {
        moved = await client.navigate(target.href);
      } catch {
        // Not a window this worker controls: ask the page instead.
      }
    }
    if (!moved) client.postMessage({ type: "delegate:open", url: target.href });
    try {
      await (moved || client).focus();
    } catch {
      // Focusing needs the click's user activation; the window has moved all the same.
    }
    return moved || client;
  }
  // Reachable from the worker's console and the browser tests, which cannot click a system notification.
  self.delegateNotifications = { openAt };

  self.addEventListener("notificationclick", (event) => {
    event.notification.close();
    event.waitUntil(openAt(event.notification.data && event.notification.data.url));
  });

  self.addEventListener("message", (event) => {
    const message = event.data;
    if (!message || message.type !== "delegate:notify") return;
    event.waitUntil(show(message.notification));
  });
})();
