//! CheckAndMutateRow and ReadModifyWriteRow: the two single-row
//! read-then-write RPCs, atomic per row.
