/**
 * Runs before first paint so a stored or system dark theme never flashes light. Inlined
 * into every page's head (app/layout.tsx) under the response's CSP nonce: as a file it was
 * a blocking request, revalidated on every load, in front of the first paint.
 */
export const THEME_INIT_SCRIPT = `(function () {
  try {
    var stored = localStorage.getItem("delegate-theme");
    var dark = stored === "dark" || (stored !== "light" && window.matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.classList.toggle("dark", dark);
    document.documentElement.style.colorScheme = dark ? "dark" : "light";
  } catch (e) {}
})();`;
