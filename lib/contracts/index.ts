export * from "./ack";
export * from "./commands";
export * from "./events";
export * from "./socket";
export * from "./turn";
export * from "./well-formed";
export * from "./account";
export * from "./model-call";
