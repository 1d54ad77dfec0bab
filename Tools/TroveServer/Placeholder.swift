// Placeholder so the TroveServer target builds before its first real file lands; delete it then.
enum TroveServerPlaceholder {}
