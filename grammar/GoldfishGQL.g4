// GoldfishGQL: the goldfish subset of ISO GQL, plus the Cypher and GQL forms
// the planner refuses by name (RETURN, ORDER BY, CREATE, ...).
//
// Design rules, kept so SLL prediction never needs full-context retries:
//  - one rule per precedence level (loops, no left recursion);
//  - labels and property keys accept every keyword (anyName); variables and
//    function names accept only the soft keywords that cannot start a clause
//    or continue an expression;
//  - arrows are built from single-character tokens, so `a<-1` stays an
//    expression and patterns never need lookahead inside a token.
//
// Regenerate parser/gen with scripts/gen-parser.sh; never edit parser/gen.
grammar GoldfishGQL;

options { caseInsensitive = true; }

// ---------------------------------------------------------------- statements

script
    : statement? (SEMI statement?)* EOF
    ;

statement
    : START TRANSACTION                                   # startTx
    | COMMIT                                              # commitTx
    | ROLLBACK                                            # rollbackTx
    | CALL qualifiedName LPAREN exprList? RPAREN yieldClause?   # callStmt
    | clause+                                             # queryStmt
    ;

qualifiedName
    : funcName (DOT anyName)*
    ;

yieldClause
    : YIELD (STAR | returnItem (COMMA returnItem)*) (WHERE expr)?
    ;

clause
    : MATCH pathPatterns (WHERE expr)?                    # matchClause
    | OPTIONAL MATCH pathPatterns (WHERE expr)?           # optionalMatchClause
    | LIMIT expr                                          # limitClause
    | INSERT pathPatterns                                 # insertClause
    | SET setItem (COMMA setItem)*                        # setClause
    | REMOVE removeItem (COMMA removeItem)*               # removeClause
    | (DETACH | NODETACH)? DELETE expr (COMMA expr)*      # deleteClause
    // recognised, refused by the planner
    | RETURN (DISTINCT | ALL)? returnItems                # returnClause
    | WITH (DISTINCT | ALL)? returnItems (WHERE expr)?    # withClause
    | ORDER BY sortItem (COMMA sortItem)*                 # orderByClause
    | SKIP_ expr                                          # skipClause
    | OFFSET expr                                         # offsetClause
    | UNWIND expr AS varName                              # unwindClause
    | CREATE pathPatterns                                 # createClause
    | MERGE pathPattern (ON (CREATE | MATCH) SET setItem (COMMA setItem)*)*  # mergeClause
    | FILTER WHERE? expr                                  # filterClause
    | LET varName EQ expr (COMMA varName EQ expr)*        # letClause
    | FOR varName IN expr                                 # forClause
    | UNION (ALL | DISTINCT)?                             # unionClause
    ;

returnItems
    : STAR (COMMA returnItem)*
    | returnItem (COMMA returnItem)*
    ;

returnItem
    : expr (AS anyName)?
    ;

sortItem
    : expr (ASC | ASCENDING | DESC | DESCENDING)?
    ;

// Items are left-factored on the variable so every choice is LL(1).
setItem
    : varName (DOT anyName EQ expr | EQ mapLiteral | PLUSEQ mapLiteral | labelSpec)
    ;

removeItem
    : varName (DOT anyName | labelSpec)
    ;

// ------------------------------------------------------------------ patterns

pathPatterns
    : pathPattern (COMMA pathPattern)*
    ;

pathPattern
    : (varName EQ)? nodePattern (edgePattern nodePattern)*
    ;

nodePattern
    : LPAREN varName? labelSpec? mapLiteral? (WHERE expr)? RPAREN
    ;

// :A:B, :A&B, :A|B, IS A, IS A&B. The builder decides which separators a
// position accepts.
labelSpec
    : (COLON anyName | IS isLabelName) (labelSep anyName)*
    ;

labelSep
    : COLON
    | AMP
    | PIPE COLON?
    ;

edgePattern
    : LT MINUS (LBRACK edgeBody RBRACK MINUS)? quantifier?          # edgeIn
    | MINUS (LBRACK edgeBody RBRACK MINUS)? GT? quantifier?         # edgeOutOrBoth
    ;

edgeBody
    : varName? labelSpec? cypherQuantifier? mapLiteral? (WHERE expr)?
    ;

cypherQuantifier
    : STAR (INTEGER? (DOTDOT INTEGER?)?)
    ;

quantifier
    : LBRACE INTEGER? (COMMA INTEGER?)? RBRACE
    | PLUS
    | STAR
    | QMARK
    ;

// --------------------------------------------------------------- expressions
//
// Expressions are flat here: operands and operators in written order. The
// builder applies precedence (OR < XOR < AND < NOT < comparison < additive <
// multiplicative < unary sign < property access) by precedence climbing.
// This keeps the parse tree shallow: an operand costs two contexts instead
// of one per precedence level.

exprList
    : expr (COMMA expr)*
    ;

expr
    : operand (binaryOp operand | STARTS WITH operand | ENDS WITH operand | exprTail)*
    ;

binaryOp
    : OR | XOR | AND
    | EQ | NEQ | NEQ2 | LT | LE | GT | GE | IN | CONTAINS
    | PLUS | MINUS | CONCAT | STAR | SLASH | PERCENT
    ;

// operand: prefix operators, a primary, property accesses.
operand
    : (NOT | MINUS | PLUS)* primary (DOT anyName)*
    ;

// IS NOT? NULL, IS NOT? LABELED? Label(&Label)*, :Label(&Label)*
exprTail
    : IS NOT? (NULL | LABELED? isLabelName (AMP anyName)*)
    | COLON anyName (AMP anyName)*
    ;

primary
    : (INTEGER | FLOAT | STRING | TRUE | FALSE | NULL)    # literalPrimary
    | (DATE | DATETIME) (STRING | callArgs)               # temporalPrimary
    | PARAM                                               # paramPrimary
    | LBRACK exprList? RBRACK                             # listPrimary
    | mapLiteral                                          # mapPrimary
    | varName callArgs?                                   # varPrimary
    | LPAREN expr RPAREN                                  # parenPrimary
    ;

// f(args), f(*), f(DISTINCT x): after a name, so primary stays LL(1).
callArgs
    : LPAREN (STAR | DISTINCT? exprList)? RPAREN
    ;

mapLiteral
    : LBRACE (mapEntry (COMMA mapEntry)*)? RBRACE
    ;

mapEntry
    : anyName COLON expr
    ;

// --------------------------------------------------------------------- names
//
// Each name rule lists its tokens directly (no nested rules): one context
// per name.

// Variables: identifiers and the soft keywords.
varName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING
    ;

funcName
    : varName
    | DATE | DATETIME
    ;

// A label after IS: any name but NULL, NOT and LABELED (which IS may be
// followed by).
isLabelName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING
    | MATCH | OPTIONAL | WHERE | LIMIT | INSERT | SET | REMOVE | DETACH
    | NODETACH | DELETE | START | COMMIT | ROLLBACK | CALL | YIELD | RETURN
    | ORDER | SKIP_ | OFFSET | WITH | UNWIND | CREATE | MERGE | FILTER | LET
    | FOR | UNION | ALL | DISTINCT | AS | ON | OR | XOR | AND | IN | STARTS
    | ENDS | CONTAINS | IS | TRUE | FALSE | DATE | DATETIME
    ;

// Labels and property keys: any identifier or keyword at all.
anyName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING
    | MATCH | OPTIONAL | WHERE | LIMIT | INSERT | SET | REMOVE | DETACH
    | NODETACH | DELETE | START | COMMIT | ROLLBACK | CALL | YIELD | RETURN
    | ORDER | SKIP_ | OFFSET | WITH | UNWIND | CREATE | MERGE | FILTER | LET
    | FOR | UNION | ALL | DISTINCT | AS | ON | OR | XOR | AND | IN | STARTS
    | ENDS | CONTAINS | IS | TRUE | FALSE | DATE | DATETIME
    | NULL | NOT | LABELED
    ;

// --------------------------------------------------------------------- lexer

MATCH       : 'MATCH';
OPTIONAL    : 'OPTIONAL';
WHERE       : 'WHERE';
LIMIT       : 'LIMIT';
INSERT      : 'INSERT';
SET         : 'SET';
REMOVE      : 'REMOVE';
DETACH      : 'DETACH';
NODETACH    : 'NODETACH';
DELETE      : 'DELETE';
START       : 'START';
TRANSACTION : 'TRANSACTION';
COMMIT      : 'COMMIT';
ROLLBACK    : 'ROLLBACK';
CALL        : 'CALL';
YIELD       : 'YIELD';
RETURN      : 'RETURN';
DISTINCT    : 'DISTINCT';
ALL         : 'ALL';
AS          : 'AS';
ORDER       : 'ORDER';
BY          : 'BY';
ASC         : 'ASC';
ASCENDING   : 'ASCENDING';
DESC        : 'DESC';
DESCENDING  : 'DESCENDING';
SKIP_       : 'SKIP';
OFFSET      : 'OFFSET';
WITH        : 'WITH';
UNWIND      : 'UNWIND';
CREATE      : 'CREATE';
MERGE       : 'MERGE';
ON          : 'ON';
FILTER      : 'FILTER';
LET         : 'LET';
FOR         : 'FOR';
UNION       : 'UNION';
OR          : 'OR';
XOR         : 'XOR';
AND         : 'AND';
NOT         : 'NOT';
IN          : 'IN';
STARTS      : 'STARTS';
ENDS        : 'ENDS';
CONTAINS    : 'CONTAINS';
IS          : 'IS';
LABELED     : 'LABELED';
NULL        : 'NULL';
TRUE        : 'TRUE';
FALSE       : 'FALSE';
DATE        : 'DATE';
DATETIME    : 'DATETIME';

LPAREN  : '(';
RPAREN  : ')';
LBRACK  : '[';
RBRACK  : ']';
LBRACE  : '{';
RBRACE  : '}';
COMMA   : ',';
SEMI    : ';';
COLON   : ':';
DOTDOT  : '..';
DOT     : '.';
PLUSEQ  : '+=';
EQ      : '=';
NEQ     : '<>';
NEQ2    : '!=';
LE      : '<=';
GE      : '>=';
LT      : '<';
GT      : '>';
PLUS    : '+';
MINUS   : '-';
STAR    : '*';
SLASH   : '/';
PERCENT : '%';
CONCAT  : '||';
PIPE    : '|';
AMP     : '&';
QMARK   : '?';

// Escapes are checked (and decoded) by the builder, so a bad escape is
// reported at its own position instead of as an unterminated string.
STRING
    : '\'' (~['\\] | '\\' . | '\'\'')* '\''
    | '"' (~["\\] | '\\' . | '""')* '"'
    ;

FLOAT
    : DIGIT+ '.' DIGIT+ EXPONENT?
    | '.' DIGIT+ EXPONENT?
    | DIGIT+ EXPONENT
    ;

INTEGER : DIGIT+;

PARAM : '$' (ID_START ID_PART* | DIGIT+);

ID : ID_START ID_PART*;

QUOTED_ID : '`' (~'`' | '``')* '`';

LINE_COMMENT  : ('//' | '--') ~[\r\n]* -> skip;
BLOCK_COMMENT : '/*' .*? '*/' -> skip;
// A comment still open at the end of the text: a token the parser never
// expects, reported as "unterminated comment".
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF;
WS            : [ \t\r\n\f]+ -> skip;

fragment DIGIT    : [0-9];
fragment EXPONENT : 'E' [+-]? DIGIT+;
fragment ID_START : [\p{L}_];
fragment ID_PART  : [\p{L}\p{N}_];
