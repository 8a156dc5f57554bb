import java.security.Provider;
import java.security.SecureRandomSpi;

/** Test-harness only: a SecureRandom for a JVM under wine, whose DRBG seeding crashes there. */
public final class WineRandom extends Provider {
    public WineRandom() {
        super("WineRandom", "1", "SecureRandom without the SUN seed generator");
        put("SecureRandom.WineRandom", Spi.class.getName());
    }

    public static final class Spi extends SecureRandomSpi {
        private final java.util.SplittableRandom r = new java.util.SplittableRandom(System.nanoTime() ^ ProcessHandle.current().pid());
        @Override protected void engineSetSeed(byte[] seed) {}
        @Override protected void engineNextBytes(byte[] bytes) {
            for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) r.nextInt();
        }
        @Override protected byte[] engineGenerateSeed(int n) { byte[] b = new byte[n]; engineNextBytes(b); return b; }
    }
}
