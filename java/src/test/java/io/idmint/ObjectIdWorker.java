package io.idmint;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** A worker process of {@link BlocksTest}: writes {@code args[1]} new ObjectIds (hex, one a line) to {@code args[0]}. */
public final class ObjectIdWorker {
    private ObjectIdWorker() {}

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        try (BufferedWriter w = Files.newBufferedWriter(Path.of(args[0]))) {
            for (int i = 0; i < n; i++) {
                w.write(new ObjectId().toHexString());
                w.newLine();
            }
        }
    }
}
