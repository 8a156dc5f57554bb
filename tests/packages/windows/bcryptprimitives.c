/* bcryptprimitives.dll for wine 8 (tests/lib.sh wine_runtimes): Rust's standard library draws its
 * random bytes with ProcessPrng (Windows 10+), which wine 8 does not have; this gives it, over
 * BCryptGenRandom. Only the release matrix's wine prefix gets it, never a package. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
