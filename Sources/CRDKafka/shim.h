// The C module over librdkafka. Swift reaches the whole C API through this header;
// C code is kept to what Swift cannot express (nothing so far).
#include <librdkafka/rdkafka.h>
