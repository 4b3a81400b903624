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

/// What went wrong, in fields a caller can match on, for the failures
/// whose wording callers change: `cbt` and `tabletop serve` name tables
/// and families as the server does, which they learn from here rather
/// than from the message text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// No table has this id.
    TableNotFound {
        /// The table id the request named.
        table: String,
    },
    /// A table with this id exists already.
    TableExists {
        /// The table id the request named.
        table: String,
    },
    /// The table has a column family of this name already.
    FamilyExists {
        /// The family the request would create.
        family: String,
    },
    /// A row mutation with no mutations in it.
    NoMutations,
    /// An empty row key where a row is written.
    EmptyRowKey,
    /// The text ended inside a quote or string, so more text could
    /// complete it (a shell line, a SQL literal).
    Unterminated,
}

/// Where in a request an error arose, put in front of its message as
/// `modification 0: ...` by [`Error::at`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The n-th change of a ModifyColumnFamilies request.
    Modification(usize),
    /// The n-th mutation of a row mutation.
    Mutation(usize),
    /// The n-th rule of a ReadModifyWriteRow request.
    Rule(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Modification(i) => write!(f, "modification {i}"),
            Place::Mutation(i) => write!(f, "mutation {i}"),
            Place::Rule(i) => write!(f, "rule {i}"),
        }
    }
}

/// A failed operation: what kind of failure (the [`Code`]) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
    /// The structured reason, when there is one (kept through context).
    cause: Option<Cause>,
    /// The place put in front of the message last, while it is still the
    /// outermost context.
    place: Option<Place>,
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
            cause: None,
            place: None,
        }
    }

    /// The same error, marked with its structured cause.
    #[must_use]
    pub fn with_cause(mut self, cause: Cause) -> Error {
        self.cause = Some(cause);
        self
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
        Error::not_found(format!("table \"{table_id}\" not found")).with_cause(
            Cause::TableNotFound {
                table: table_id.to_string(),
            },
        )
    }

    /// `ALREADY_EXISTS` for a table id.
    #[must_use]
    pub fn table_exists(table_id: &str) -> Error {
        Error::already_exists(format!("table \"{table_id}\" already exists")).with_cause(
            Cause::TableExists {
                table: table_id.to_string(),
            },
        )
    }

    /// `ALREADY_EXISTS` for a column family of a table.
    #[must_use]
    pub fn family_exists(family: &str) -> Error {
        Error::already_exists(format!("column family \"{family}\" already exists")).with_cause(
            Cause::FamilyExists {
                family: family.to_string(),
            },
        )
    }

    /// `INVALID_ARGUMENT` for a row mutation with no mutations.
    #[must_use]
    pub fn no_mutations() -> Error {
        Error::invalid("a row mutation must contain at least one mutation")
            .with_cause(Cause::NoMutations)
    }

    /// `INVALID_ARGUMENT` for an empty row key.
    #[must_use]
    pub fn empty_row_key() -> Error {
        Error::invalid("row key must not be empty").with_cause(Cause::EmptyRowKey)
    }

    /// The structured cause, for the failures that have one.
    #[must_use]
    pub fn cause(&self) -> Option<&Cause> {
        self.cause.as_ref()
    }

    /// The place [`Error::at`] put in front of the message, if nothing was
    /// put in front of it since.
    #[must_use]
    pub fn place(&self) -> Option<Place> {
        self.place
    }

    /// The message without the [`Error::place`] in front of it (the whole
    /// message when there is no place).
    #[must_use]
    pub fn message_within_place(&self) -> &str {
        match self.place {
            // `at` wrote exactly "{place}: " in front.
            Some(place) => self
                .message
                .get(place.to_string().len() + 2..)
                .unwrap_or(&self.message),
            None => &self.message,
        }
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
        self.place = None;
        self
    }

    /// The same error with the place in the request put in front of its
    /// message (`modification 0: ...`), remembered as [`Error::place`].
    #[must_use]
    pub fn at(self, place: Place) -> Error {
        let mut e = self.context(place);
        e.place = Some(place);
        e
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

    #[test]
    fn a_place_is_remembered_until_more_context_is_put_in_front() {
        let e = Error::family_exists("cf").at(Place::Modification(0));
        assert_eq!(
            e.message(),
            "modification 0: column family \"cf\" already exists"
        );
        assert_eq!(e.place(), Some(Place::Modification(0)));
        assert_eq!(
            e.message_within_place(),
            "column family \"cf\" already exists"
        );
        assert_eq!(
            e.cause(),
            Some(&Cause::FamilyExists {
                family: "cf".into()
            })
        );
        let e = e.context("snapshot");
        assert_eq!(e.place(), None);
        assert_eq!(e.message_within_place(), e.message());
        // The cause is the root's, whatever is put in front.
        assert!(matches!(e.cause(), Some(Cause::FamilyExists { .. })));
        assert_eq!(Error::invalid("x").cause(), None);
    }
}
