/**
 * JSONC syntax trees without the Node-compatibility layer: a port of `parseTree` and
 * `printParseErrorCode` from Microsoft's `jsonc-parser` 3.3.1 (MIT), token for token.
 *
 * The npm package ships CommonJS (its ESM build uses extensionless imports Deno cannot
 * resolve), and loading any CommonJS module starts Deno's Node layer: ≈50 ms on the path
 * of every `harness run`. The trees, offsets and errors here are the package's, its error
 * recovery included (`1.` is an error and still the number 1, `-` alone is an unknown
 * symbol); `_jsonc_test.ts` compares the two on hand-picked and fuzzed documents.
 *
 * @module
 */

/** The kind of a syntax-tree node. */
export type NodeType = "object" | "array" | "property" | "string" | "number" | "boolean" | "null";

/** A node of a JSONC syntax tree, as `jsonc-parser` shapes it. */
export interface Node {
  readonly type: NodeType;
  /** The literal's value (property names are `string` children holding theirs). */
  readonly value?: unknown;
  /** Offset in UTF-16 code units of the node's first character. */
  readonly offset: number;
  /** Length in UTF-16 code units. */
  readonly length: number;
  /** Offset of a property's colon, when it has one. */
  readonly colonOffset?: number;
  /** The enclosing node (absent on the root). */
  readonly parent?: Node;
  /** Members, elements, or a property's name and value. */
  readonly children?: Node[];
}

/** A syntax error: its code (see {@link printParseErrorCode}) and where it is. */
export interface ParseError {
  error: number;
  offset: number;
  length: number;
}

/** What the parser accepts beyond strict JSON. */
export interface ParseOptions {
  disallowComments?: boolean;
  allowTrailingComma?: boolean;
  allowEmptyContent?: boolean;
}

const enum Token {
  OpenBrace = 1,
  CloseBrace = 2,
  OpenBracket = 3,
  CloseBracket = 4,
  Comma = 5,
  Colon = 6,
  Null = 7,
  True = 8,
  False = 9,
  String = 10,
  Number = 11,
  LineComment = 12,
  BlockComment = 13,
  LineBreak = 14,
  Trivia = 15,
  Unknown = 16,
  EOF = 17,
}

const enum ScanError {
  None = 0,
  UnexpectedEndOfComment = 1,
  UnexpectedEndOfString = 2,
  UnexpectedEndOfNumber = 3,
  InvalidUnicode = 4,
  InvalidEscapeCharacter = 5,
  InvalidCharacter = 6,
}

const ERROR_NAMES = [
  "",
  "InvalidSymbol",
  "InvalidNumberFormat",
  "PropertyNameExpected",
  "ValueExpected",
  "ColonExpected",
  "CommaExpected",
  "CloseBraceExpected",
  "CloseBracketExpected",
  "EndOfFileExpected",
  "InvalidCommentToken",
  "UnexpectedEndOfComment",
  "UnexpectedEndOfString",
  "UnexpectedEndOfNumber",
  "InvalidUnicode",
  "InvalidEscapeCharacter",
  "InvalidCharacter",
];

/** The name of a parse error code, as `jsonc-parser` prints it (`"ValueExpected"`). */
export function printParseErrorCode(code: number): string {
  return ERROR_NAMES[code] || "<unknown ParseErrorCode>";
}

const isWhiteSpace = (ch: number) => ch === 32 || ch === 9;
const isLineBreak = (ch: number) => ch === 10 || ch === 13;
const isDigit = (ch: number) => ch >= 48 && ch <= 57;

/** A token stream over `text`, trivia included (the package's `createScanner`). */
class Scanner {
  pos = 0;
  value = "";
  tokenOffset = 0;
  token = Token.Unknown;
  error = ScanError.None;

  constructor(private readonly text: string) {}

  get tokenLength(): number {
    return this.pos - this.tokenOffset;
  }

  private hexDigits(count: number): number {
    const text = this.text;
    let digits = 0;
    let value = 0;
    while (digits < count) {
      const ch = text.charCodeAt(this.pos);
      if (ch >= 48 && ch <= 57) value = value * 16 + ch - 48;
      else if (ch >= 65 && ch <= 70) value = value * 16 + ch - 65 + 10;
      else if (ch >= 97 && ch <= 102) value = value * 16 + ch - 97 + 10;
      else break;
      this.pos++;
      digits++;
    }
    return digits < count ? -1 : value;
  }

  private number(): string {
    const text = this.text;
    const start = this.pos;
    if (text.charCodeAt(this.pos) === 48) this.pos++;
    else {
      this.pos++;
      while (this.pos < text.length && isDigit(text.charCodeAt(this.pos))) this.pos++;
    }
    if (this.pos < text.length && text.charCodeAt(this.pos) === 46) {
      this.pos++;
      if (this.pos < text.length && isDigit(text.charCodeAt(this.pos))) {
        this.pos++;
        while (this.pos < text.length && isDigit(text.charCodeAt(this.pos))) this.pos++;
      } else {
        this.error = ScanError.UnexpectedEndOfNumber;
        return text.substring(start, this.pos);
      }
    }
    let end = this.pos;
    const e = text.charCodeAt(this.pos);
    if (this.pos < text.length && (e === 69 || e === 101)) {
      this.pos++;
      const sign = text.charCodeAt(this.pos);
      if (sign === 43 || sign === 45) this.pos++;
      if (this.pos < text.length && isDigit(text.charCodeAt(this.pos))) {
        this.pos++;
        while (this.pos < text.length && isDigit(text.charCodeAt(this.pos))) this.pos++;
        end = this.pos;
      } else {
        this.error = ScanError.UnexpectedEndOfNumber;
      }
    }
    return text.substring(start, end);
  }

  private string(): string {
    const text = this.text;
    const len = text.length;
    let result = "";
    let start = this.pos;
    while (true) {
      if (this.pos >= len) {
        result += text.substring(start, this.pos);
        this.error = ScanError.UnexpectedEndOfString;
        break;
      }
      const ch = text.charCodeAt(this.pos);
      if (ch === 34) {
        result += text.substring(start, this.pos);
        this.pos++;
        break;
      }
      if (ch === 92) {
        result += text.substring(start, this.pos);
        this.pos++;
        if (this.pos >= len) {
          this.error = ScanError.UnexpectedEndOfString;
          break;
        }
        const ch2 = text.charCodeAt(this.pos++);
        switch (ch2) {
          case 34:
            result += '"';
            break;
          case 92:
            result += "\\";
            break;
          case 47:
            result += "/";
            break;
          case 98:
            result += "\b";
            break;
          case 102:
            result += "\f";
            break;
          case 110:
            result += "\n";
            break;
          case 114:
            result += "\r";
            break;
          case 116:
            result += "\t";
            break;
          case 117: {
            const ch3 = this.hexDigits(4);
            if (ch3 >= 0) result += String.fromCharCode(ch3);
            else this.error = ScanError.InvalidUnicode;
            break;
          }
          default:
            this.error = ScanError.InvalidEscapeCharacter;
        }
        start = this.pos;
        continue;
      }
      if (ch >= 0 && ch <= 0x1f) {
        if (isLineBreak(ch)) {
          result += text.substring(start, this.pos);
          this.error = ScanError.UnexpectedEndOfString;
          break;
        }
        this.error = ScanError.InvalidCharacter; // marked, and the string goes on
      }
      this.pos++;
    }
    return result;
  }

  /** Reads the next token, trivia included, and returns its kind. */
  scan(): Token {
    const text = this.text;
    const len = text.length;
    this.value = "";
    this.error = ScanError.None;
    this.tokenOffset = this.pos;
    if (this.pos >= len) {
      this.tokenOffset = len;
      return this.token = Token.EOF;
    }
    let code = text.charCodeAt(this.pos);
    if (isWhiteSpace(code)) {
      do code = text.charCodeAt(++this.pos); while (isWhiteSpace(code));
      return this.token = Token.Trivia;
    }
    if (isLineBreak(code)) {
      this.pos++;
      if (code === 13 && text.charCodeAt(this.pos) === 10) this.pos++;
      return this.token = Token.LineBreak;
    }
    switch (code) {
      case 123:
        this.pos++;
        return this.token = Token.OpenBrace;
      case 125:
        this.pos++;
        return this.token = Token.CloseBrace;
      case 91:
        this.pos++;
        return this.token = Token.OpenBracket;
      case 93:
        this.pos++;
        return this.token = Token.CloseBracket;
      case 58:
        this.pos++;
        return this.token = Token.Colon;
      case 44:
        this.pos++;
        return this.token = Token.Comma;
      case 34:
        this.pos++;
        this.value = this.string();
        return this.token = Token.String;
      case 47: {
        if (text.charCodeAt(this.pos + 1) === 47) {
          this.pos += 2;
          while (this.pos < len && !isLineBreak(text.charCodeAt(this.pos))) this.pos++;
          return this.token = Token.LineComment;
        }
        if (text.charCodeAt(this.pos + 1) === 42) {
          this.pos += 2;
          let closed = false;
          while (this.pos < len - 1) {
            if (text.charCodeAt(this.pos) === 42 && text.charCodeAt(this.pos + 1) === 47) {
              this.pos += 2;
              closed = true;
              break;
            }
            this.pos++;
          }
          if (!closed) {
            this.pos++;
            this.error = ScanError.UnexpectedEndOfComment;
          }
          return this.token = Token.BlockComment;
        }
        this.pos++;
        return this.token = Token.Unknown;
      }
      case 45:
        this.pos++;
        if (this.pos === len || !isDigit(text.charCodeAt(this.pos))) {
          return this.token = Token.Unknown;
        }
        this.value = "-" + this.number();
        return this.token = Token.Number;
      case 48:
      case 49:
      case 50:
      case 51:
      case 52:
      case 53:
      case 54:
      case 55:
      case 56:
      case 57:
        this.value = this.number();
        return this.token = Token.Number;
      default:
        while (this.pos < len && isWordCharacter(code)) code = text.charCodeAt(++this.pos);
        if (this.tokenOffset !== this.pos) {
          this.value = text.substring(this.tokenOffset, this.pos);
          switch (this.value) {
            case "true":
              return this.token = Token.True;
            case "false":
              return this.token = Token.False;
            case "null":
              return this.token = Token.Null;
          }
          return this.token = Token.Unknown;
        }
        this.pos++;
        return this.token = Token.Unknown;
    }
  }
}

function isWordCharacter(code: number): boolean {
  if (isWhiteSpace(code) || isLineBreak(code)) return false;
  switch (code) {
    case 125:
    case 93:
    case 123:
    case 91:
    case 34:
    case 58:
    case 44:
    case 47:
      return false;
  }
  return true;
}

/** A node while its length is still unknown. */
interface Building {
  type: NodeType;
  value?: unknown;
  offset: number;
  length: number;
  colonOffset?: number;
  parent?: Building;
  children?: Building[];
}

function literalType(value: unknown): NodeType {
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return "null";
  }
}

/**
 * Parses `text` into a syntax tree, recovering from errors as `jsonc-parser` does: every
 * error is pushed onto `errors`, and the tree holds what could be read (undefined when
 * nothing could).
 */
export function parseTree(
  text: string,
  errors: ParseError[] = [],
  options: ParseOptions = {},
): Node | undefined {
  const scanner = new Scanner(text);
  /** The current token (a call, so that TypeScript does not narrow it across scans). */
  const token = (): Token => scanner.token;
  const disallowComments = options.disallowComments;
  const allowTrailingComma = options.allowTrailingComma;
  let current: Building = { type: "array", offset: -1, length: -1, children: [] };

  function ensurePropertyComplete(endOffset: number) {
    if (current.type === "property") {
      current.length = endOffset - current.offset;
      current = current.parent!;
    }
  }
  function add(node: Building): Building {
    current.children!.push(node);
    return node;
  }
  function literal(value: unknown) {
    const { tokenOffset: offset, tokenLength: length } = scanner;
    add({ type: literalType(value), offset, length, parent: current, value });
    ensurePropertyComplete(offset + length);
  }
  function onError(error: number) {
    errors.push({ error, offset: scanner.tokenOffset, length: scanner.tokenLength });
  }

  function scanNext(): Token {
    while (true) {
      const next = scanner.scan();
      switch (scanner.error) {
        case ScanError.InvalidUnicode:
          onError(14);
          break;
        case ScanError.InvalidEscapeCharacter:
          onError(15);
          break;
        case ScanError.UnexpectedEndOfNumber:
          onError(13);
          break;
        case ScanError.UnexpectedEndOfComment:
          if (!disallowComments) onError(11);
          break;
        case ScanError.UnexpectedEndOfString:
          onError(12);
          break;
        case ScanError.InvalidCharacter:
          onError(16);
          break;
      }
      switch (next) {
        case Token.LineComment:
        case Token.BlockComment:
          if (disallowComments) onError(10);
          break;
        case Token.Unknown:
          onError(1);
          break;
        case Token.Trivia:
        case Token.LineBreak:
          break;
        default:
          return next;
      }
    }
  }

  /** Reports `error`, then skips to a token of `until` (kept) or `after` (consumed). */
  function handleError(error: number, after: Token[] = [], until: Token[] = []) {
    onError(error);
    if (after.length + until.length === 0) return;
    let next = token();
    while (next !== Token.EOF) {
      if (after.includes(next)) {
        scanNext();
        break;
      }
      if (until.includes(next)) break;
      next = scanNext();
    }
  }

  function parseLiteral(): boolean {
    switch (token()) {
      case Token.Number: {
        let value = Number(scanner.value);
        if (isNaN(value)) {
          handleError(2);
          value = 0;
        }
        literal(value);
        break;
      }
      case Token.Null:
        literal(null);
        break;
      case Token.True:
        literal(true);
        break;
      case Token.False:
        literal(false);
        break;
      default:
        return false;
    }
    scanNext();
    return true;
  }

  function parseProperty(): boolean {
    if (token() !== Token.String) {
      handleError(3, [], [Token.CloseBrace, Token.Comma]);
      return false;
    }
    const { tokenOffset: offset, tokenLength: length } = scanner;
    current = add({ type: "property", offset, length: -1, parent: current, children: [] });
    current.children!.push({
      type: "string",
      value: scanner.value,
      offset,
      length,
      parent: current,
    });
    scanNext();
    if (token() === Token.Colon) {
      if (current.type === "property") current.colonOffset = scanner.tokenOffset;
      scanNext();
      if (!parseValue()) handleError(4, [], [Token.CloseBrace, Token.Comma]);
    } else {
      handleError(5, [], [Token.CloseBrace, Token.Comma]);
    }
    return true;
  }

  function comma() {
    if (current.type === "property") ensurePropertyComplete(scanner.tokenOffset);
  }

  function end() {
    const endOffset = scanner.tokenOffset + scanner.tokenLength;
    current.length = endOffset - current.offset;
    current = current.parent!;
    ensurePropertyComplete(endOffset);
  }

  function parseObject(): boolean {
    current = add({
      type: "object",
      offset: scanner.tokenOffset,
      length: -1,
      parent: current,
      children: [],
    });
    scanNext();
    let needsComma = false;
    while (token() !== Token.CloseBrace && token() !== Token.EOF) {
      if (token() === Token.Comma) {
        if (!needsComma) handleError(4);
        comma();
        scanNext();
        if (token() === Token.CloseBrace && allowTrailingComma) break;
      } else if (needsComma) {
        handleError(6);
      }
      if (!parseProperty()) handleError(4, [], [Token.CloseBrace, Token.Comma]);
      needsComma = true;
    }
    // A property still open (a missing value) ends where the object does.
    ensurePropertyComplete(scanner.tokenOffset + scanner.tokenLength);
    end();
    if (token() !== Token.CloseBrace) handleError(7, [Token.CloseBrace]);
    else scanNext();
    return true;
  }

  function parseArray(): boolean {
    current = add({
      type: "array",
      offset: scanner.tokenOffset,
      length: -1,
      parent: current,
      children: [],
    });
    scanNext();
    let needsComma = false;
    while (token() !== Token.CloseBracket && token() !== Token.EOF) {
      if (token() === Token.Comma) {
        if (!needsComma) handleError(4);
        comma();
        scanNext();
        if (token() === Token.CloseBracket && allowTrailingComma) break;
      } else if (needsComma) {
        handleError(6);
      }
      if (!parseValue()) handleError(4, [], [Token.CloseBracket, Token.Comma]);
      needsComma = true;
    }
    end();
    if (token() !== Token.CloseBracket) handleError(8, [Token.CloseBracket]);
    else scanNext();
    return true;
  }

  function parseValue(): boolean {
    switch (token()) {
      case Token.OpenBracket:
        return parseArray();
      case Token.OpenBrace:
        return parseObject();
      case Token.String:
        literal(scanner.value);
        scanNext();
        return true;
      default:
        return parseLiteral();
    }
  }

  scanNext();
  if (token() === Token.EOF) {
    if (!options.allowEmptyContent) handleError(4);
  } else if (!parseValue()) {
    handleError(4);
  } else if (token() !== Token.EOF) {
    handleError(9);
  }
  const root = current.children![0];
  if (root) delete root.parent;
  return root as Node | undefined;
}
