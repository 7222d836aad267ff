import type { ShareNamespace } from "@/server/share/share-socket";
import type { AppServer } from "./types";

/**
 * The Socket.IO server and the share namespace, for the parts of the app built before
 * them: the server is made on the HTTP server, whose handler needs the services, and the
 * services tell sockets things (a relayed event, a sign-in that ended). They read these
 * when that happens, by which time createApp has set both.
 */
export class AppSockets {
  private server: AppServer | undefined;
  /** Absent without share links, and until their namespace is registered. */
  shareNs: ShareNamespace | undefined;

  get io(): AppServer {
    if (!this.server) throw new Error("the Socket.IO server is not made yet");
    return this.server;
  }

  set io(server: AppServer) {
    this.server = server;
  }
}
