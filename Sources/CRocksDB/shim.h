// The C module over RocksDB's C API. Only Sources/DeviceStore/Native calls it.
#include <rocksdb/c.h>
