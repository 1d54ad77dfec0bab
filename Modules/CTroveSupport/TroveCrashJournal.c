// The crash journal (see TroveCrashJournal.h). Everything a signal handler touches is a plain store into the
// shared mapping or sigaction(), both safe in a handler.

#include "TroveCrashJournal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct trove_journal_slot {
    _Atomic uint32_t state;
    uint32_t length;
    char name[TROVE_JOURNAL_NAME_BYTES];
};

struct trove_journal {
    char magic[4];
    uint32_t version;
    volatile int32_t crashed_slot;
    volatile int32_t crash_signal;
    char reserved[48];
    struct trove_journal_slot slots[TROVE_JOURNAL_SLOTS];
};

_Static_assert(sizeof(struct trove_journal_slot) == 1024, "a slot is 1 KiB");
_Static_assert(sizeof(((struct trove_journal *)0)->reserved) + 16 == 64, "the header is 64 bytes");

static struct trove_journal *_Atomic journal = NULL;
static __thread int current_slot = -1;

static const int fatal_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };
#define FATAL_SIGNAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous_actions[FATAL_SIGNAL_COUNT];
static atomic_int handlers_installed = 0;

size_t trove_journal_file_size(void) { return sizeof(struct trove_journal); }

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    struct trove_journal *mapped = atomic_load(&journal);
    if (mapped && current_slot >= 0) {
        mapped->crash_signal = signal;
        mapped->crashed_slot = current_slot;
    }
    // Put the handler that was there back and return: a fault happens again at once and reaches it with
    // its real context; abort() raises again itself.
    for (size_t i = 0; i < FATAL_SIGNAL_COUNT; i++) {
        if (fatal_signals[i] == signal) sigaction(signal, &previous_actions[i], NULL);
    }
}

static void install_handlers(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&handlers_installed, &expected, 1)) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < FATAL_SIGNAL_COUNT; i++) sigaction(fatal_signals[i], &action, &previous_actions[i]);
}

int trove_journal_open(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    size_t size = sizeof(struct trove_journal);
    if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)size) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int error = errno;
    close(fd);
    if (memory == MAP_FAILED) return -error;
    struct trove_journal *fresh = memory;
    memcpy(fresh->magic, "TRVJ", 4);
    fresh->version = 1;
    fresh->crashed_slot = -1;
    fresh->crash_signal = 0;
    struct trove_journal *old = atomic_exchange(&journal, fresh);
    // A second open in one process keeps the first mapping alive (threads may still hold its slots).
    (void)old;
    install_handlers();
    return 0;
}

int trove_journal_enter(const char *name, size_t length) {
    struct trove_journal *mapped = atomic_load(&journal);
    if (!mapped) return -1;
    if (length > TROVE_JOURNAL_NAME_BYTES) length = TROVE_JOURNAL_NAME_BYTES;
    for (int slot = 0; slot < TROVE_JOURNAL_SLOTS; slot++) {
        uint32_t free_state = 0;
        if (atomic_compare_exchange_strong(&mapped->slots[slot].state, &free_state, 1)) {
            memcpy(mapped->slots[slot].name, name, length);
            mapped->slots[slot].length = (uint32_t)length;
            current_slot = slot;
            return slot;
        }
    }
    return -1;
}

void trove_journal_leave(int slot) {
    struct trove_journal *mapped = atomic_load(&journal);
    if (!mapped || slot < 0 || slot >= TROVE_JOURNAL_SLOTS) return;
    if (current_slot == slot) current_slot = -1;
    mapped->slots[slot].length = 0;
    atomic_store(&mapped->slots[slot].state, 0);
}
