/* dlopen RUNTIME FILE SYMBOL [FILE SYMBOL ...]: loads RUNTIME globally (a stand-in defining the
 * symbols CPython or Node would: Py*, napi_*; musl binds every symbol at load, and there is no
 * ARM64 musl CPython or Node here), then each library (relocated, its constructors run) and finds
 * the entry symbol its runtime calls, without calling it. tests/packages.sh builds it for ARM64 musl and runs it under qemu: the
 * C-level load of the ARM64 musl packages (no ARM64 musl CPython or Node here). Exit 1 on the
 * first library or symbol that is not there, with the loader's message. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 2 || !dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "dlopen %s: %s\n", argc < 2 ? "(no runtime given)" : argv[1], dlerror());
        return 1;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        void *h = dlopen(argv[i], RTLD_LAZY | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "dlopen %s: %s\n", argv[i], dlerror());
            return 1;
        }
        void *s = dlsym(h, argv[i + 1]);
        if (!s) {
            fprintf(stderr, "dlsym %s in %s: %s\n", argv[i + 1], argv[i], dlerror());
            return 1;
        }
        printf("  loaded %s, %s found\n", argv[i], argv[i + 1]);
    }
    return 0;
}
