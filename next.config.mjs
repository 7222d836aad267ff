/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The custom server owns the HTTP API and Socket.IO; Next only renders pages.
  serverExternalPackages: ["mongoose"],
};

export default nextConfig;
