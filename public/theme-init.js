// Runs before first paint so a stored or system dark theme never flashes light.
(function () {
  try {
    var stored = localStorage.getItem("delegate-theme");
    var dark = stored === "dark" || (stored !== "light" && window.matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.classList.toggle("dark", dark);
    document.documentElement.style.colorScheme = dark ? "dark" : "light";
  } catch (e) {}
})();
