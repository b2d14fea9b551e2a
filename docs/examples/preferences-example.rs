// SPDX-License-Identifier: Apache-2.0
// libpreferences from Rust through its C ABI, without bindings generated: write a value and read it back.
// Build: rustc preferences-example.rs -L <dir of libpreferences.so> -l preferences -o preferences-example-rs
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;

#[repr(C)]
struct PrefsClient(c_void);
#[repr(C)]
struct PrefsDomain(c_void);
#[repr(C)]
struct PrefsError(c_void);

extern "C" {
    fn prefs_client_new(socket_path: *const c_char, error: *mut *mut PrefsError) -> *mut PrefsClient;
    fn prefs_client_free(client: *mut PrefsClient);
    fn prefs_domain_open(client: *mut PrefsClient, name: *const c_char, flags: u32,
                         error: *mut *mut PrefsError) -> *mut PrefsDomain;
    fn prefs_domain_free(domain: *mut PrefsDomain);
    fn prefs_domain_set_int64(domain: *mut PrefsDomain, key: *const c_char, value: i64,
                              error: *mut *mut PrefsError) -> bool;
    fn prefs_domain_get_int64(domain: *mut PrefsDomain, key: *const c_char, value: *mut i64,
                              error: *mut *mut PrefsError) -> bool;
    fn prefs_error_get_message(error: *const PrefsError) -> *const c_char;
    fn prefs_error_free(error: *mut PrefsError);
}

/// The library's error as a Rust string, freeing it.
unsafe fn take_error(error: *mut PrefsError) -> String {
    let message = CStr::from_ptr(prefs_error_get_message(error)).to_string_lossy().into_owned();
    prefs_error_free(error);
    message
}

fn main() -> Result<(), String> {
    let name = CString::new(std::env::args().nth(1).unwrap_or("com.example.rust".into())).unwrap();
    let key = CString::new("answer").unwrap();
    unsafe {
        let mut error: *mut PrefsError = ptr::null_mut();
        let client = prefs_client_new(ptr::null(), &mut error);
        if client.is_null() { return Err(take_error(error)); }
        let domain = prefs_domain_open(client, name.as_ptr(), 0, &mut error);
        if domain.is_null() { return Err(take_error(error)); }
        if !prefs_domain_set_int64(domain, key.as_ptr(), 42, &mut error) { return Err(take_error(error)); }
        let mut value = 0i64;
        if !prefs_domain_get_int64(domain, key.as_ptr(), &mut value, &mut error) { return Err(take_error(error)); }
        println!("answer = {value}");
        prefs_domain_free(domain);
        prefs_client_free(client);
    }
    Ok(())
}
