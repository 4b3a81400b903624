//! Splitting a command line into arguments the way bash would before it
//! runs `cbt`: blanks separate words; single quotes, double quotes and
//! backslashes quote; `$'...'` is ANSI-C quoting (`\n`, `\t`, `\xHH`,
//! `\NNN`, `\uHHHH`, ...), which is how `cbt`'s own help tells people to
//! type arbitrary bytes; `#` at the start of a word begins a comment.
//!
//! What a shell would do that the playground refuses rather than guess:
//! variables and command substitution (`$x`, `${x}`, `$(...)`, backticks)
//! and unquoted operators (`|`, `&`, `;`, `<`, `>`, `(`, `)`). Those are
//! errors with a hint to quote the argument, since `cbt`'s GC policies
//! (`maxage=1d||maxversions=2`) are the classic way to trip over them.
//! Globs, `~` and `{a,b}` stay literal (there are no files to match).
//!
//! As in bash, a NUL byte produced inside `$'...'` (`\x00`, `\0`) ends that
//! quoted string: a C argument vector cannot carry NUL, so real `cbt` never
//! receives one. Hosts that have argument bytes already (a JS array) can
//! call [`run_args`](super::run_args) with any bytes.

use tabletop_store::{Cause, Error, Result};

fn lex_error(msg: impl Into<String>) -> Error {
    Error::invalid(msg)
}

/// A line that ends inside a quote: more text could complete it.
fn unterminated(msg: &str) -> Error {
    lex_error(msg).with_cause(Cause::Unterminated)
}

fn operator_error(c: char) -> Error {
    lex_error(format!(
        "unquoted '{c}' is a shell operator, which the playground does not run; \
         put the argument in quotes (for example 'maxage=1d||maxversions=2')"
    ))
}

fn expansion_error() -> Error {
    lex_error(
        "shell expansions ($name, ${...}, $(...), `...`) are not supported; \
         quote a literal dollar sign as '$' or \\$",
    )
}

/// Whether `$` followed by `c` starts a parameter expansion or command
/// substitution in bash.
fn starts_expansion(c: Option<char>) -> bool {
    matches!(c, Some(c) if c.is_ascii_alphanumeric()
        || matches!(c, '_' | '{' | '(' | '@' | '*' | '#' | '?' | '$' | '!' | '-'))
}

/// Reads the body of `$'...'` (after the opening quote) from `chars`,
/// appending the bytes to `word`.
fn ansi_c(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, word: &mut Vec<u8>) -> Result<()> {
    // After a NUL, bash drops the rest of the quoted string.
    let mut truncated = false;
    let push = |word: &mut Vec<u8>, bytes: &[u8], truncated: &mut bool| {
        if *truncated {
            return;
        }
        if let Some(p) = bytes.iter().position(|&b| b == 0) {
            word.extend_from_slice(&bytes[..p]);
            *truncated = true;
        } else {
            word.extend_from_slice(bytes);
        }
    };
    loop {
        let Some(c) = chars.next() else {
            return Err(unterminated("unterminated $'...' string"));
        };
        match c {
            '\'' => return Ok(()),
            '\\' => {
                let Some(e) = chars.next() else {
                    return Err(unterminated("unterminated $'...' string"));
                };
                let simple: Option<u8> = match e {
                    'a' => Some(0x07),
                    'b' => Some(0x08),
                    'e' | 'E' => Some(0x1b),
                    'f' => Some(0x0c),
                    'n' => Some(b'\n'),
                    'r' => Some(b'\r'),
                    't' => Some(b'\t'),
                    'v' => Some(0x0b),
                    '\\' => Some(b'\\'),
                    '\'' => Some(b'\''),
                    '"' => Some(b'"'),
                    '?' => Some(b'?'),
                    _ => None,
                };
                if let Some(b) = simple {
                    push(word, &[b], &mut truncated);
                    continue;
                }
                match e {
                    '0'..='7' => {
                        let mut v = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match chars.peek().and_then(|c| c.to_digit(8)) {
                                Some(d) => {
                                    v = v * 8 + d;
                                    chars.next();
                                }
                                None => break,
                            }
                        }
                        // Bash keeps the low byte of \400..\777.
                        push(word, &[(v & 0xff) as u8], &mut truncated);
                    }
                    'x' | 'u' | 'U' => {
                        let max = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut v: u32 = 0;
                        let mut n = 0;
                        while n < max {
                            match chars.peek().and_then(|c| c.to_digit(16)) {
                                Some(d) => {
                                    v = v * 16 + d;
                                    chars.next();
                                    n += 1;
                                }
                                None => break,
                            }
                        }
                        if n == 0 {
                            // No digits: bash keeps the escape as written.
                            let mut lit = [b'\\', 0];
                            lit[1] = e as u8;
                            push(word, &lit, &mut truncated);
                        } else if e == 'x' {
                            push(word, &[(v & 0xff) as u8], &mut truncated);
                        } else {
                            let ch = char::from_u32(v).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            push(word, ch.encode_utf8(&mut buf).as_bytes(), &mut truncated);
                        }
                    }
                    'c' => {
                        // Control character: \cA is 0x01, \c? is 0x7f.
                        match chars.next() {
                            Some('?') => push(word, &[0x7f], &mut truncated),
                            Some(x) if x.is_ascii() => {
                                push(word, &[(x as u8) & 0x1f], &mut truncated);
                            }
                            Some(x) => {
                                let mut buf = [0u8; 4];
                                push(word, b"\\c", &mut truncated);
                                push(word, x.encode_utf8(&mut buf).as_bytes(), &mut truncated);
                            }
                            None => return Err(unterminated("unterminated $'...' string")),
                        }
                    }
                    other => {
                        // Unknown escapes stay as written, backslash included.
                        let mut buf = [0u8; 4];
                        push(word, b"\\", &mut truncated);
                        push(word, other.encode_utf8(&mut buf).as_bytes(), &mut truncated);
                    }
                }
            }
            other => {
                let mut buf = [0u8; 4];
                push(word, other.encode_utf8(&mut buf).as_bytes(), &mut truncated);
            }
        }
    }
}

/// Splits one command line into its arguments, as bash would.
///
/// A newline outside quotes ends the command: anything but blanks and
/// comments after it is an error (see [`tokenize_script`] for several
/// commands). Returns an `INVALID_ARGUMENT` error for unterminated quotes,
/// shell operators and expansions.
pub fn tokenize(line: &str) -> Result<Vec<Vec<u8>>> {
    let mut commands = lex(line)?;
    if commands.len() > 1 {
        return Err(lex_error(
            "one command per line: the playground runs a single cbt command at a time",
        ));
    }
    Ok(commands.pop().unwrap_or_default())
}

/// Splits a script into commands (one per line, as bash runs them; a
/// quoted newline stays inside its argument) and each command into its
/// arguments. Blank lines and comments produce nothing.
pub fn tokenize_script(script: &str) -> Result<Vec<Vec<Vec<u8>>>> {
    lex(script)
}

fn lex(text: &str) -> Result<Vec<Vec<Vec<u8>>>> {
    let mut commands: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut words: Vec<Vec<u8>> = Vec::new();
    let mut word: Vec<u8> = Vec::new();
    // Whether the current word has begun (quotes make even an empty word).
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                if c == '\n' && !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '#' if !in_word => {
                // A comment runs to the end of the line; the newline still
                // ends the command.
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(e) => {
                    word.extend_from_slice(e.encode_utf8(&mut buf).as_bytes());
                    in_word = true;
                }
                // A trailing backslash stays literal.
                None => {
                    word.push(b'\\');
                    in_word = true;
                }
            },
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
                        None => return Err(unterminated("unterminated single quote")),
                    }
                }
            }
            '"' => {
                in_word = true;
                double_quoted(&mut chars, &mut word)?;
            }
            '$' => match chars.peek().copied() {
                Some('\'') => {
                    chars.next();
                    in_word = true;
                    ansi_c(&mut chars, &mut word)?;
                }
                Some('"') => {
                    // $"..." is a locale-translated string: the same text.
                    chars.next();
                    in_word = true;
                    double_quoted(&mut chars, &mut word)?;
                }
                next if starts_expansion(next) => return Err(expansion_error()),
                _ => {
                    word.push(b'$');
                    in_word = true;
                }
            },
            '`' => return Err(expansion_error()),
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => return Err(operator_error(c)),
            other => {
                word.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if !words.is_empty() {
        commands.push(words);
    }
    Ok(commands)
}

/// Reads the body of a double-quoted string (after the opening quote).
fn double_quoted(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    word: &mut Vec<u8>,
) -> Result<()> {
    let mut buf = [0u8; 4];
    loop {
        match chars.next() {
            Some('"') => return Ok(()),
            Some('\\') => match chars.next() {
                Some(e @ ('$' | '`' | '"' | '\\')) => word.push(e as u8),
                Some('\n') => {}
                Some(e) => {
                    word.push(b'\\');
                    word.extend_from_slice(e.encode_utf8(&mut buf).as_bytes());
                }
                None => return Err(unterminated("unterminated double quote")),
            },
            Some('$') => {
                if starts_expansion(chars.peek().copied()) {
                    return Err(expansion_error());
                }
                word.push(b'$');
            }
            Some('`') => return Err(expansion_error()),
            Some(c) => word.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            None => return Err(unterminated("unterminated double quote")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tokenize;

    fn words(line: &str) -> Vec<Vec<u8>> {
        tokenize(line).unwrap()
    }

    #[test]
    fn splits_like_bash() {
        assert_eq!(
            words("  set t  r cf:a=1 "),
            vec![
                b"set".to_vec(),
                b"t".to_vec(),
                b"r".to_vec(),
                b"cf:a=1".to_vec()
            ]
        );
        assert_eq!(
            words("a 'b c' \"d\\\"e\" f\\ g ''"),
            vec![
                b"a".to_vec(),
                b"b c".to_vec(),
                b"d\"e".to_vec(),
                b"f g".to_vec(),
                b"".to_vec()
            ]
        );
        assert_eq!(words("x'y'\"z\"$'w'"), vec![b"xyzw".to_vec()]);
        assert_eq!(words("a # comment"), vec![b"a".to_vec()]);
        assert_eq!(words("a#b"), vec![b"a#b".to_vec()]);
        assert_eq!(words("\"a\\b\""), vec![b"a\\b".to_vec()]);
        assert_eq!(words("price$ 5$"), vec![b"price$".to_vec(), b"5$".to_vec()]);
    }

    #[test]
    fn ansi_c_quoting_gives_bytes() {
        assert_eq!(
            words(r"$'\x41g\101\1014\cA\q\e'"),
            vec![b"AgAA4\x01\\q\x1b".to_vec()]
        );
        assert_eq!(
            words(r"$'\u00e9\xe9\U1F600'"),
            vec![
                "é".bytes()
                    .chain([0xe9])
                    .chain("😀".bytes())
                    .collect::<Vec<u8>>()
            ]
        );
        // A NUL ends the quoted string, as in bash.
        assert_eq!(words(r"$'a\x00b'c"), vec![b"ac".to_vec()]);
        assert_eq!(words(r"$'\n\t\\\''"), vec![b"\n\t\\'".to_vec()]);
    }

    #[test]
    fn refuses_what_it_would_not_run_like_bash() {
        for bad in [
            "a | b", "a&&b", "x;y", "'open", "\"open", "$HOME", "${x}", "$(ls)", "`ls`", "a\nb",
            "(x)",
        ] {
            assert!(tokenize(bad).is_err(), "{bad}");
        }
        assert!(tokenize("a\n# comment\n").is_ok());
    }

    #[test]
    fn scripts_split_into_commands() {
        let cmds =
            super::tokenize_script("ls\n\n# note\nset t r 'cf:a=x\ny'  # trailing\ncount t\n")
                .unwrap();
        assert_eq!(cmds.len(), 3);
        assert_eq!(cmds[1][3], b"cf:a=x\ny".to_vec());
        assert_eq!(cmds[2], vec![b"count".to_vec(), b"t".to_vec()]);
    }
}
