// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * httpd-notls.c - the gnutls functions a static libmicrohttpd names, for a
 * static iotap without gnutls (configure --enable-static-binary, when the
 * static gnutls chain does not link: Debian 12 ships no libp11-kit.a).
 *
 * libmicrohttpd's constructor and destructor call gnutls_global_init and
 * gnutls_global_deinit whatever the daemon does; every other call below is
 * on a path of MHD_USE_TLS (or its PSK and certificate options), which
 * httpd.c never asks for here: it refuses a web configuration when built
 * with this file (IOTAP_HTTPD_NOTLS), so the endpoint is plain HTTP. Those abort, so
 * that a TLS path reached after all is a crash, not a connection served
 * without its encryption.
 */
#include <stdlib.h>

/* gnutls_global_init - there is nothing to set up */
int gnutls_global_init(void);
int gnutls_global_init(void)
{
	return 0;
}

/* gnutls_global_deinit - nor to tear down */
void gnutls_global_deinit(void);
void gnutls_global_deinit(void)
{
}

/* gnutls's allocator, a variable: a PSK key's (never reached) */
void *(*gnutls_malloc)(size_t) = malloc;

/* A TLS-only entry point of libmicrohttpd 0.9.75 (nm -u libmicrohttpd.a): not reached. */
#define NOTLS(f) void f(void); void f(void) { abort(); }
NOTLS(gnutls_alpn_set_protocols)
NOTLS(gnutls_bye)
NOTLS(gnutls_certificate_allocate_credentials)
NOTLS(gnutls_certificate_free_credentials)
NOTLS(gnutls_certificate_server_set_request)
NOTLS(gnutls_certificate_set_dh_params)
NOTLS(gnutls_certificate_set_retrieve_function2)
NOTLS(gnutls_certificate_set_retrieve_function3)
NOTLS(gnutls_certificate_set_x509_key_mem)
NOTLS(gnutls_certificate_set_x509_key_mem2)
NOTLS(gnutls_certificate_set_x509_trust_mem)
/* httpd.c's client certificate check, on a TLS connection only. */
NOTLS(gnutls_certificate_verify_peers2)
NOTLS(gnutls_cipher_get)
NOTLS(gnutls_credentials_set)
NOTLS(gnutls_deinit)
NOTLS(gnutls_dh_params_deinit)
NOTLS(gnutls_dh_params_import_pkcs3)
NOTLS(gnutls_dh_params_init)
NOTLS(gnutls_handshake)
NOTLS(gnutls_init)
NOTLS(gnutls_priority_deinit)
NOTLS(gnutls_priority_init)
NOTLS(gnutls_priority_set)
NOTLS(gnutls_protocol_get_version)
NOTLS(gnutls_psk_allocate_server_credentials)
NOTLS(gnutls_psk_free_server_credentials)
NOTLS(gnutls_psk_set_server_credentials_function)
NOTLS(gnutls_record_check_pending)
NOTLS(gnutls_record_get_direction)
NOTLS(gnutls_record_recv)
NOTLS(gnutls_record_send)
NOTLS(gnutls_session_get_ptr)
NOTLS(gnutls_session_set_ptr)
NOTLS(gnutls_strerror)
NOTLS(gnutls_transport_set_int2)
