// SPDX-License-Identifier: Apache-2.0
//
// The OpenSSL functions PrefsFleet calls, each forwarding to libssl.so.3, which CPrefsOpenSSL_load loads with dlopen.
//
// Linking libssl made every prefsd load it and libcrypto at start-up, 1.7 MB of resident memory (their relocated
// data and the pages their initialisation touches) in a daemon that runs once per user, although only a fleet
// reached over https:// uses TLS. So the executables refer to no OpenSSL symbol: these definitions, with the
// prototypes of OpenSSL's own headers (a mismatch does not compile), find the library's function on their first
// call and keep it. libssl stays a shared library that Debian's security updates reach.

#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *library;
static char load_error[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_library(void) {
    // RTLD_LOCAL: OpenSSL's symbols stay out of the scope of libraries loaded later.
    library = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libssl.so.3: %s",
                 reason != NULL ? reason : "unknown error");
    }
}

int CPrefsOpenSSL_load(char *reason, size_t size) {
    pthread_once(&load_once, load_library);
    if (library != NULL) return 1;
    if (reason != NULL && size > 0) snprintf(reason, size, "%s", load_error);
    return 0;
}

static void *openssl_function(const char *name) {
    pthread_once(&load_once, load_library);
    if (library == NULL) {
        fprintf(stderr, "error: %s called before OpenSSL was loaded (%s)\n", name, load_error);
        abort();
    }
    void *function = dlsym(library, name);
    if (function == NULL) {
        fprintf(stderr, "error: libssl.so.3 has no %s\n", name);
        abort();
    }
    return function;
}

// The function `name` of libssl or libcrypto (dlsym searches libssl's dependencies too), looked up once.
#define RESOLVED(name)                                                                                            \
    static _Atomic(__typeof__(&name)) resolved = NULL;                                                            \
    __typeof__(&name) function = atomic_load_explicit(&resolved, memory_order_acquire);                           \
    if (function == NULL) {                                                                                       \
        function = (__typeof__(&name))openssl_function(#name);                                                    \
        atomic_store_explicit(&resolved, function, memory_order_release);                                         \
    }

// MARK: BIO

size_t BIO_ctrl_pending(BIO *b) {
    RESOLVED(BIO_ctrl_pending)
    return function(b);
}

int BIO_free(BIO *a) {
    RESOLVED(BIO_free)
    return function(a);
}

BIO *BIO_new(const BIO_METHOD *type) {
    RESOLVED(BIO_new)
    return function(type);
}

int BIO_read(BIO *b, void *data, int dlen) {
    RESOLVED(BIO_read)
    return function(b, data, dlen);
}

const BIO_METHOD *BIO_s_mem(void) {
    RESOLVED(BIO_s_mem)
    return function();
}

int BIO_write(BIO *b, const void *data, int dlen) {
    RESOLVED(BIO_write)
    return function(b, data, dlen);
}

// MARK: Errors

void ERR_clear_error(void) {
    RESOLVED(ERR_clear_error)
    function();
}

void ERR_error_string_n(unsigned long e, char *buf, size_t len) {
    RESOLVED(ERR_error_string_n)
    function(e, buf, len);
}

unsigned long ERR_get_error(void) {
    RESOLVED(ERR_get_error)
    return function();
}

unsigned long ERR_peek_last_error(void) {
    RESOLVED(ERR_peek_last_error)
    return function();
}

const char *ERR_reason_error_string(unsigned long e) {
    RESOLVED(ERR_reason_error_string)
    return function(e);
}

// MARK: Keys and certificates

void EVP_PKEY_free(EVP_PKEY *pkey) {
    RESOLVED(EVP_PKEY_free)
    function(pkey);
}

EVP_PKEY *PEM_read_bio_PrivateKey(BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u) {
    RESOLVED(PEM_read_bio_PrivateKey)
    return function(out, x, cb, u);
}

X509 *PEM_read_bio_X509(BIO *out, X509 **x, pem_password_cb *cb, void *u) {
    RESOLVED(PEM_read_bio_X509)
    return function(out, x, cb, u);
}

X509 *PEM_read_bio_X509_AUX(BIO *out, X509 **x, pem_password_cb *cb, void *u) {
    RESOLVED(PEM_read_bio_X509_AUX)
    return function(out, x, cb, u);
}

X509_CRL *PEM_read_bio_X509_CRL(BIO *out, X509_CRL **x, pem_password_cb *cb, void *u) {
    RESOLVED(PEM_read_bio_X509_CRL)
    return function(out, x, cb, u);
}

int X509_STORE_add_cert(X509_STORE *ctx, X509 *x) {
    RESOLVED(X509_STORE_add_cert)
    return function(ctx, x);
}

int X509_STORE_add_crl(X509_STORE *ctx, X509_CRL *x) {
    RESOLVED(X509_STORE_add_crl)
    return function(ctx, x);
}

int X509_STORE_set_flags(X509_STORE *ctx, unsigned long flags) {
    RESOLVED(X509_STORE_set_flags)
    return function(ctx, flags);
}

void X509_CRL_free(X509_CRL *a) {
    RESOLVED(X509_CRL_free)
    function(a);
}

int X509_VERIFY_PARAM_set1_host(X509_VERIFY_PARAM *param, const char *name, size_t namelen) {
    RESOLVED(X509_VERIFY_PARAM_set1_host)
    return function(param, name, namelen);
}

int X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *param, const char *ipasc) {
    RESOLVED(X509_VERIFY_PARAM_set1_ip_asc)
    return function(param, ipasc);
}

void X509_free(X509 *a) {
    RESOLVED(X509_free)
    function(a);
}

const char *X509_verify_cert_error_string(long n) {
    RESOLVED(X509_verify_cert_error_string)
    return function(n);
}

// MARK: Contexts

int SSL_CTX_check_private_key(const SSL_CTX *ctx) {
    RESOLVED(SSL_CTX_check_private_key)
    return function(ctx);
}

long SSL_CTX_ctrl(SSL_CTX *ctx, int cmd, long larg, void *parg) {
    RESOLVED(SSL_CTX_ctrl)
    return function(ctx, cmd, larg, parg);
}

void SSL_CTX_free(SSL_CTX *ctx) {
    RESOLVED(SSL_CTX_free)
    function(ctx);
}

X509_STORE *SSL_CTX_get_cert_store(const SSL_CTX *ctx) {
    RESOLVED(SSL_CTX_get_cert_store)
    return function(ctx);
}

SSL_CTX *SSL_CTX_new(const SSL_METHOD *meth) {
    RESOLVED(SSL_CTX_new)
    return function(meth);
}

int SSL_CTX_set_default_verify_paths(SSL_CTX *ctx) {
    RESOLVED(SSL_CTX_set_default_verify_paths)
    return function(ctx);
}

void SSL_CTX_set_verify(SSL_CTX *ctx, int mode, SSL_verify_cb callback) {
    RESOLVED(SSL_CTX_set_verify)
    function(ctx, mode, callback);
}

int SSL_CTX_use_PrivateKey(SSL_CTX *ctx, EVP_PKEY *pkey) {
    RESOLVED(SSL_CTX_use_PrivateKey)
    return function(ctx, pkey);
}

int SSL_CTX_use_certificate(SSL_CTX *ctx, X509 *x) {
    RESOLVED(SSL_CTX_use_certificate)
    return function(ctx, x);
}

const SSL_METHOD *TLS_client_method(void) {
    RESOLVED(TLS_client_method)
    return function();
}

// MARK: Connections

long SSL_ctrl(SSL *ssl, int cmd, long larg, void *parg) {
    RESOLVED(SSL_ctrl)
    return function(ssl, cmd, larg, parg);
}

int SSL_do_handshake(SSL *s) {
    RESOLVED(SSL_do_handshake)
    return function(s);
}

void SSL_free(SSL *ssl) {
    RESOLVED(SSL_free)
    function(ssl);
}

X509_VERIFY_PARAM *SSL_get0_param(SSL *ssl) {
    RESOLVED(SSL_get0_param)
    return function(ssl);
}

int SSL_get_error(const SSL *s, int ret_code) {
    RESOLVED(SSL_get_error)
    return function(s, ret_code);
}

long SSL_get_verify_result(const SSL *ssl) {
    RESOLVED(SSL_get_verify_result)
    return function(ssl);
}

SSL *SSL_new(SSL_CTX *ctx) {
    RESOLVED(SSL_new)
    return function(ctx);
}

int SSL_read(SSL *ssl, void *buf, int num) {
    RESOLVED(SSL_read)
    return function(ssl, buf, num);
}

void SSL_set_bio(SSL *s, BIO *rbio, BIO *wbio) {
    RESOLVED(SSL_set_bio)
    function(s, rbio, wbio);
}

void SSL_set_connect_state(SSL *s) {
    RESOLVED(SSL_set_connect_state)
    function(s);
}

int SSL_shutdown(SSL *s) {
    RESOLVED(SSL_shutdown)
    return function(s);
}

int SSL_write(SSL *ssl, const void *buf, int num) {
    RESOLVED(SSL_write)
    return function(ssl, buf, num);
}
