/* Found only through -Icompdb/inc: libclang needs the build's flags. */
#define LEN (1 << 16)
