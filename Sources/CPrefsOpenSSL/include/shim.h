// SPDX-License-Identifier: Apache-2.0
#ifndef CPREFS_OPENSSL_SHIM_H
#define CPREFS_OPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

/* Loads libssl.so.3 (and libcrypto.so.3 with it), once per process and safely from any thread, so that the OpenSSL
 * functions the module calls reach the library (openssl.c). Returns 1 when it is loaded; 0, with the loader's
 * reason in `reason` (NUL-terminated, truncated to `size` bytes), when it cannot be. Call it before any other
 * OpenSSL function: those abort the process, naming the function, if the library was not loaded. */
int CPrefsOpenSSL_load(char *reason, size_t size);

/* OpenSSL's macros over SSL_CTX_ctrl and SSL_ctrl, which Swift cannot import, as functions. */

static inline int CPrefsOpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

/* Takes ownership of the certificate on success. */
static inline int CPrefsOpenSSL_SSL_CTX_add_extra_chain_cert(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add_extra_chain_cert(context, certificate);
}

static inline int CPrefsOpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif
