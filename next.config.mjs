/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The custom server owns the HTTP API and Socket.IO; Next only renders pages.
  serverExternalPackages: ["mongoose"],
  // The service workers (public/): always checked with the server, so a new version
  // reaches every browser on its next visit instead of after a cache's lifetime.
  async headers() {
    return ["/sw.js", "/sw-notifications.js"].map((source) => ({
      source,
      headers: [
        { key: "Content-Type", value: "text/javascript; charset=utf-8" },
        { key: "Cache-Control", value: "no-cache" },
      ],
    }));
  },
};

export default nextConfig;
