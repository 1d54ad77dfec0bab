// Placeholder so the TroveImgproxy target builds before its first real file lands; delete it then.
enum TroveImgproxyPlaceholder {}
