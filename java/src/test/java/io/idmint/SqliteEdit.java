package io.idmint;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * {@code SqliteEdit DB SQL}: runs one statement on a SQLite file through sqlite-jdbc and prints
 * how many rows it changed. The tests run it as a separate process ({@link Processes#sqlite}),
 * never in the JVM that holds idmint's own SQLite connections: two copies of SQLite in one
 * process do not see each other's POSIX locks (closing one's file releases the other's), which
 * breaks locking and can show stale data or I/O errors.
 */
public final class SqliteEdit {
    private SqliteEdit() {}

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0]); Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = 5000");
            System.out.println(s.executeUpdate(args[1]));
        }
    }
}
