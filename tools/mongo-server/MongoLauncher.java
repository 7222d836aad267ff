import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Starts mongo-java-server on 127.0.0.1 and prints "LISTENING <port>" once it accepts
 * connections, so the Node side can wait for that line instead of polling.
 *
 * Usage: java -cp 'target/lib/*' MongoLauncher.java [--port N] [--h2 FILE]
 *   --port 0 picks a free port; --h2 keeps data in an H2 MVStore file (survives restarts),
 *   otherwise everything lives in memory.
 *
 * The server stops when stdin closes, so a crashed parent never leaves it running.
 */
public class MongoLauncher {
    /**
     * H2's MVStore commits its changes to the file about once a second on its own, so a
     * write the server had acknowledged could vanish if the process was killed within that
     * second. This backend commits before it answers: what a client was told is written
     * is in the file (the operating system keeps it if only the process dies).
     */
    static final class DurableH2Backend extends H2Backend {
        DurableH2Backend(String file) {
            super(file);
        }

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            Document answer = super.handleCommand(channel, database, command, query);
            commit();
            return answer;
        }

        @Override
        public Document handleMessage(MongoMessage message) {
            Document answer = super.handleMessage(message);
            commit();
            return answer;
        }
    }

    /**
     * The version the server announces. mongo-java-server 1.47 announces wire version 8
     * (MongoDB 4.2); the current Node driver (mongodb 7.8, under mongoose 9.12) refuses
     * anything below 9. The app only sends commands that exist unchanged since 4.0 (CRUD,
     * indexes, findAndModify, bulk writes), so announcing 4.4 is truthful for its purposes;
     * server/db/mongo-compat.test.ts checks every operation the app uses.
     */
    private static final MongoVersion REPORTED_VERSION = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(4, 4, 0);
        }

        @Override
        public int getWireVersion() {
            return 9;
        }
    };

    public static void main(String[] args) throws IOException {
        int port = 0;
        String h2File = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--h2" -> h2File = args[++i];
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        MongoBackend backend = h2File == null ? new MemoryBackend() : new DurableH2Backend(h2File);
        backend.version(REPORTED_VERSION);
        MongoServer server = new MongoServer(backend);
        server.bind(new InetSocketAddress("127.0.0.1", port));
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        System.out.println("LISTENING " + server.getLocalAddress().getPort());
        System.out.flush();
        while (System.in.read() != -1) {
            // Drain until the parent closes the pipe.
        }
        server.shutdownNow();
        System.exit(0);
    }
}
