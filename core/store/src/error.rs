//! Errors as Bigtable reports them: a gRPC status code and a sentence.
//!
//! Every fallible operation of the crate returns [`Error`]. The code is the
//! one Cloud Bigtable answers with for the same mistake, so a program that
//! handles `NOT_FOUND` against the real service handles it here too.

use std::fmt;

/// The `google.rpc.Code` values Bigtable uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// The operation was cancelled.
    Cancelled,
    /// An error with no better code (the emulator's answer to many things).
    Unknown,
    /// The request is malformed: a bad name, a bad filter, a value too big.
    InvalidArgument,
    /// A table, family or other resource does not exist.
    NotFound,
    /// A table or family with that name exists already.
    AlreadyExists,
    /// The caller may not do this: a write outside an authorized view.
    PermissionDenied,
    /// A quota or size limit was exceeded.
    ResourceExhausted,
    /// The request is valid but the resource is not in a state to accept it.
    FailedPrecondition,
    /// A concurrency check failed: an etag that no longer matches.
    Aborted,
    /// A value lies outside the range the operation accepts.
    OutOfRange,
    /// The request names a feature this playground does not implement.
    Unimplemented,
    /// A broken invariant inside the playground; always a bug.
    Internal,
}

impl Code {
    /// The numeric code of `google.rpc.Code`.
    #[must_use]
    pub fn number(self) -> i32 {
        match self {
            Code::Cancelled => 1,
            Code::Unknown => 2,
            Code::InvalidArgument => 3,
            Code::NotFound => 5,
            Code::AlreadyExists => 6,
            Code::PermissionDenied => 7,
            Code::ResourceExhausted => 8,
            Code::FailedPrecondition => 9,
            Code::Aborted => 10,
            Code::OutOfRange => 11,
            Code::Unimplemented => 12,
            Code::Internal => 13,
        }
    }

    /// The canonical upper-case name, as in `"INVALID_ARGUMENT"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
        }
    }

    /// Parses a canonical name such as `"NOT_FOUND"`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Code> {
        Some(match name {
            "CANCELLED" => Code::Cancelled,
            "UNKNOWN" => Code::Unknown,
            "INVALID_ARGUMENT" => Code::InvalidArgument,
            "NOT_FOUND" => Code::NotFound,
            "ALREADY_EXISTS" => Code::AlreadyExists,
            "PERMISSION_DENIED" => Code::PermissionDenied,
            "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
            "FAILED_PRECONDITION" => Code::FailedPrecondition,
            "ABORTED" => Code::Aborted,
            "OUT_OF_RANGE" => Code::OutOfRange,
            "UNIMPLEMENTED" => Code::Unimplemented,
            "INTERNAL" => Code::Internal,
            _ => return None,
        })
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed operation: what kind of failure (the [`Code`]) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with the given code and message.
    #[must_use]
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// `INVALID_ARGUMENT` with a message.
    #[must_use]
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(Code::InvalidArgument, message)
    }

    /// `NOT_FOUND` with a message.
    #[must_use]
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(Code::NotFound, message)
    }

    /// `ALREADY_EXISTS` with a message.
    #[must_use]
    pub fn already_exists(message: impl Into<String>) -> Error {
        Error::new(Code::AlreadyExists, message)
    }

    /// `FAILED_PRECONDITION` with a message.
    #[must_use]
    pub fn failed_precondition(message: impl Into<String>) -> Error {
        Error::new(Code::FailedPrecondition, message)
    }

    /// `PERMISSION_DENIED` with a message.
    #[must_use]
    pub fn permission_denied(message: impl Into<String>) -> Error {
        Error::new(Code::PermissionDenied, message)
    }

    /// `ABORTED` with a message.
    #[must_use]
    pub fn aborted(message: impl Into<String>) -> Error {
        Error::new(Code::Aborted, message)
    }

    /// `UNIMPLEMENTED` with a message.
    #[must_use]
    pub fn unimplemented(message: impl Into<String>) -> Error {
        Error::new(Code::Unimplemented, message)
    }

    /// `INTERNAL` with a message: a bug in the playground.
    #[must_use]
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(Code::Internal, message)
    }

    /// `NOT_FOUND` for a table id.
    #[must_use]
    pub fn table_not_found(table_id: &str) -> Error {
        Error::not_found(format!("table \"{table_id}\" not found"))
    }

    /// The status code.
    #[must_use]
    pub fn code(&self) -> Code {
        self.code
    }

    /// The human-readable message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with `context` put in front of its message.
    #[must_use]
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_by_name() {
        for code in [
            Code::Cancelled,
            Code::Unknown,
            Code::InvalidArgument,
            Code::NotFound,
            Code::AlreadyExists,
            Code::ResourceExhausted,
            Code::FailedPrecondition,
            Code::OutOfRange,
            Code::Unimplemented,
            Code::Internal,
        ] {
            assert_eq!(Code::from_name(code.as_str()), Some(code));
        }
        assert_eq!(Code::InvalidArgument.number(), 3);
        assert_eq!(Code::NotFound.number(), 5);
    }

    #[test]
    fn display_names_code_and_message() {
        let e = Error::table_not_found("t1");
        assert_eq!(e.code(), Code::NotFound);
        assert_eq!(e.to_string(), "NOT_FOUND: table \"t1\" not found");
        assert_eq!(
            e.context("readRows").message(),
            "readRows: table \"t1\" not found"
        );
    }
}
