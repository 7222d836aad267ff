import packageJson from "@/package.json" with { type: "json" };

/** The app's version, as package.json says: the A2A agent card names it. */
export const APP_VERSION: string = packageJson.version;
