import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import io.netty.channel.Channel;
import org.h2.mvstore.MVStore;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

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
     * What a client was told is written is in the file, and the file only ever holds
     * whole commands. H2's MVStore would on its own save about once a second whatever the
     * map holds then, possibly half a command (a document in its collection, not yet in
     * its index: after a crash, found by _id and missed by every query). So the background
     * save is off, and the store is committed after each command, while no other command
     * is half done: commands run side by side under the read lock, each commit takes the
     * write lock (fair, so a waiting commit is not overtaken by new commands).
     */
    static final class DurableH2Backend extends H2Backend {
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

        DurableH2Backend(String file) {
            super(new MVStore.Builder().fileName(file).autoCommitDisabled().open());
        }

        /** Commands a command runs inside (a message's command): the outermost one commits. */
        private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);

        private Document durably(Supplier<Document> command) {
            int[] nested = depth.get();
            if (nested[0] > 0) return command.get();
            Document answer;
            nested[0]++;
            lock.readLock().lock();
            try {
                answer = command.get();
            } finally {
                lock.readLock().unlock();
                nested[0]--;
            }
            lock.writeLock().lock();
            try {
                commit();
            } finally {
                lock.writeLock().unlock();
            }
            return answer;
        }

        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            return durably(() -> super.handleCommand(channel, database, command, query));
        }

        @Override
        public Document handleMessage(MongoMessage message) {
            return durably(() -> super.handleMessage(message));
        }

        @Override
        public void close() {
            // Closing saves the store: not with a command half done.
            lock.writeLock().lock();
            try {
                super.close();
            } finally {
                lock.writeLock().unlock();
            }
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
