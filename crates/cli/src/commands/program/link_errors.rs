//! A link that failed on undefined symbols, turned into a message that names what the
//! program needs: the CUDA API functions (runtime, driver, cuBLAS, cuRAND …) that
//! warpcheck's runtime does not implement, relocatable device code, and any other
//! undefined symbol, instead of the linker's dump.

/// Prefixes of the CUDA libraries' C API names (runtime, driver, math libraries, NVRTC,
/// NVTX).
const API_PREFIXES: &[&str] = &[
    "cuda", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "nvrtc", "nvtx",
    "nvjpeg", "ncclComm", "nccl", "__cuda",
];

/// The symbols a GNU ld or lld message reports undefined, each once, in order.
pub fn undefined_symbols(linker_output: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in linker_output.lines() {
        let name = if let Some((_, rest)) = line.split_once("undefined reference to `") {
            rest.split_once('\'').map(|(n, _)| n)
        } else if let Some((_, rest)) = line.split_once("undefined symbol: ") {
            Some(rest.trim())
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !n.is_empty())
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_string());
        }
    }
    names
}

/// Whether `name` is a CUDA library's API function (`cudaGraphLaunch`, `cuModuleLoad`,
/// `cublasCreate_v2`), by its prefix.
fn is_api(name: &str) -> bool {
    let driver = name
        .strip_prefix("cu")
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase());
    driver || API_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The message for a failed link's `text` (the error `run_tool` made, the linker's
/// output in it): names what is missing when symbols are undefined, else `text` as it is.
pub fn explain(text: &str) -> String {
    let names = undefined_symbols(text);
    if names.is_empty() {
        return text.to_string();
    }
    let (rdc, rest): (Vec<&String>, Vec<&String>) = names
        .iter()
        .partition(|n| n.starts_with("__cudaRegisterLinkedBinary"));
    let (api, other): (Vec<&String>, Vec<&String>) = rest.into_iter().partition(|n| is_api(n));
    let join = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !api.is_empty() {
        parts.push(format!(
            "the program calls {}, which warpcheck's runtime does not implement",
            join(&api)
        ));
    }
    if !rdc.is_empty() {
        parts.push(
            "the program was compiled as relocatable device code (-rdc=true), which warpcheck does not support"
                .to_string(),
        );
    }
    if !other.is_empty() {
        parts.push(format!(
            "these symbols are defined nowhere in the program: {}",
            join(&other)
        ));
    }
    format!("cannot link the program: {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GNU: &str = "linking the program failed:
/usr/bin/ld: /tmp/w/host0.o: in function `main':
/src/g.cu:12:(.text+0x1c): undefined reference to `cudaGraphCreate'
/usr/bin/ld: /src/g.cu:14:(.text+0x3a): undefined reference to `cudaGraphLaunch'
/usr/bin/ld: /src/g.cu:19:(.text+0x52): undefined reference to `cudaGraphCreate'
/usr/bin/ld: /tmp/w/host0.o: in function `setup_main()':
common.h:80:(.text+0x9): undefined reference to `cublasCreate_v2'
/usr/bin/ld: undefined reference to `cuModuleLoad'
/usr/bin/ld: undefined reference to `helper(int)'
collect2: error: ld returned 1 exit status";

    #[test]
    fn undefined_api_functions_are_named_once_each() {
        assert_eq!(
            undefined_symbols(GNU),
            [
                "cudaGraphCreate",
                "cudaGraphLaunch",
                "cublasCreate_v2",
                "cuModuleLoad",
                "helper(int)"
            ]
        );
        assert_eq!(
            explain(GNU),
            "cannot link the program: the program calls cudaGraphCreate, cudaGraphLaunch, \
             cublasCreate_v2, cuModuleLoad, which warpcheck's runtime does not implement; \
             these symbols are defined nowhere in the program: helper(int)"
        );
    }

    #[test]
    fn lld_messages_and_relocatable_device_code() {
        let lld = "ld.lld: error: undefined symbol: __cudaRegisterLinkedBinary_12_k_cpp1_ii_abc\n\
                   >>> referenced by k.cu\n";
        assert_eq!(
            explain(lld),
            "cannot link the program: the program was compiled as relocatable device code \
             (-rdc=true), which warpcheck does not support"
        );
    }

    #[test]
    fn other_failures_keep_the_linkers_words() {
        let text = "linking the program failed:\n/usr/bin/ld: cannot find -lfoo";
        assert_eq!(explain(text), text);
        assert!(!is_api("curl_easy_init"));
        assert!(is_api("cuLaunchKernel"));
        assert!(is_api("cudaMallocArray"));
    }
}
