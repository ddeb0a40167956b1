/* replay_main.c — runs a harness over files without libFuzzer, so every build (gcc, the
 * sanitizer build, clang without -fsanitize=fuzzer) replays the seed corpus and any saved
 * crash through the same checks.
 *
 * Usage: fuzz_replay_X PATH...   (a file, or a directory whose regular files are read;
 * not recursive). Exit status 0 when every input ran (a failing check aborts); 1 when a
 * path cannot be read or no input was found. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + size, 1, cap - size, f);
        size += got;
        if (size < cap) {
            break;
        }
        uint8_t *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f) || buf == NULL;
    fclose(f);
    if (failed) {
        free(buf);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    /* An exact-size copy, so ASan sees reads past the end of the input. */
    uint8_t *exact = malloc(size > 0 ? size : 1);
    if (exact == NULL) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, size);
    free(buf);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 1;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such path %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return run_file(path);
    }
    DIR *dir = opendir(path);
    if (dir == NULL) {
        fprintf(stderr, "replay: cannot open directory %s\n", path);
        return -1;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *file = malloc(len);
        if (file == NULL) {
            count = -1;
            break;
        }
        snprintf(file, len, "%s/%s", path, e->d_name);
        struct stat fst;
        if (stat(file, &fst) == 0 && S_ISREG(fst.st_mode)) {
            int r = run_file(file);
            if (r < 0) {
                free(file);
                count = -1;
                break;
            }
            count += r;
        }
        free(file);
    }
    closedir(dir);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; ++i) {
        int r = run_path(argv[i]);
        if (r < 0) {
            return 1;
        }
        total += r;
    }
    printf("replayed %d inputs\n", total);
    return total > 0 ? 0 : 1;
}
