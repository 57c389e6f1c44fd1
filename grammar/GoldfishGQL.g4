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

setItem
    : varName DOT anyName EQ expr                         # setPropItem
    | varName EQ mapLiteral                               # setAllItem
    | varName PLUSEQ mapLiteral                           # setMergeItem
    | varName labelSpec                                   # setLabelsItem
    ;

removeItem
    : varName DOT anyName                                 # removePropItem
    | varName labelSpec                                   # removeLabelsItem
    ;

// ------------------------------------------------------------------ patterns

pathPatterns
    : pathPattern (COMMA pathPattern)*
    ;

pathPattern
    : (varName EQ)? nodePattern (edgePattern nodePattern)*
    ;

nodePattern
    : LPAREN varName? labelSpec? properties? (WHERE expr)? RPAREN
    ;

// :A:B, :A&B, :A|B, IS A, IS A&B. The builder decides which separators a
// position accepts.
labelSpec
    : (COLON anyName | IS isLabelName) (labelSep anyName)*
    ;

labelSep
    : COLON
    | AMP
    | PIPE
    | PIPE COLON
    ;

edgePattern
    : LT MINUS (LBRACK edgeBody RBRACK MINUS)? quantifier?          # edgeIn
    | MINUS (LBRACK edgeBody RBRACK MINUS)? GT? quantifier?         # edgeOutOrBoth
    ;

edgeBody
    : varName? labelSpec? cypherQuantifier? properties? (WHERE expr)?
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

properties
    : mapLiteral
    ;

// --------------------------------------------------------------- expressions

exprList
    : expr (COMMA expr)*
    ;

expr
    : xorExpr (OR xorExpr)*
    ;

xorExpr
    : andExpr (XOR andExpr)*
    ;

andExpr
    : notExpr (AND notExpr)*
    ;

notExpr
    : NOT notExpr
    | comparison
    ;

comparison
    : additive compTail*
    ;

compTail
    : compOp additive                                     # binaryTail
    | IN additive                                         # inTail
    | STARTS WITH additive                                # startsWithTail
    | ENDS WITH additive                                  # endsWithTail
    | CONTAINS additive                                   # containsTail
    | IS NOT? NULL                                        # isNullTail
    | IS NOT? LABELED? isLabelName (AMP anyName)*         # isLabelTail
    | COLON anyName (AMP anyName)*                        # colonLabelTail
    ;

compOp
    : EQ | NEQ | NEQ2 | LT | LE | GT | GE
    ;

additive
    : multiplicative ((PLUS | MINUS | CONCAT) multiplicative)*
    ;

multiplicative
    : unary ((STAR | SLASH | PERCENT) unary)*
    ;

unary
    : (MINUS | PLUS) unary
    | postfix
    ;

postfix
    : primary (DOT anyName)*
    ;

primary
    : literal                                             # literalPrimary
    | PARAM                                               # paramPrimary
    | LBRACK exprList? RBRACK                             # listPrimary
    | mapLiteral                                          # mapPrimary
    | funcName LPAREN (STAR | DISTINCT? exprList)? RPAREN # callPrimary
    | varName                                             # varPrimary
    | LPAREN expr RPAREN                                  # parenPrimary
    ;

literal
    : INTEGER
    | FLOAT
    | STRING
    | TRUE
    | FALSE
    | NULL
    | DATE STRING
    | DATETIME STRING
    ;

mapLiteral
    : LBRACE (mapEntry (COMMA mapEntry)*)? RBRACE
    ;

mapEntry
    : anyName COLON expr
    ;

// --------------------------------------------------------------------- names

// Variables: identifiers and the soft keywords.
varName
    : ID
    | QUOTED_ID
    | softKeyword
    ;

funcName
    : ID
    | QUOTED_ID
    | softKeyword
    | DATE
    | DATETIME
    ;

// A label after IS: anything but the words IS may be followed by.
isLabelName
    : ID
    | QUOTED_ID
    | softKeyword
    | hardKeyword
    ;

// Labels and property keys: any identifier or keyword at all.
anyName
    : isLabelName
    | NULL
    | NOT
    | LABELED
    ;

softKeyword
    : TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING
    ;

hardKeyword
    : MATCH | OPTIONAL | WHERE | LIMIT | INSERT | SET | REMOVE | DETACH
    | NODETACH | DELETE | START | COMMIT | ROLLBACK | CALL | YIELD | RETURN
    | ORDER | SKIP_ | OFFSET | WITH | UNWIND | CREATE | MERGE | FILTER | LET
    | FOR | UNION | ALL | DISTINCT | AS | ON | OR | XOR | AND | IN | STARTS
    | ENDS | CONTAINS | IS | TRUE | FALSE | DATE | DATETIME
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
WS            : [ \t\r\n\f]+ -> skip;

fragment DIGIT    : [0-9];
fragment EXPONENT : 'E' [+-]? DIGIT+;
fragment ID_START : [\p{L}_];
fragment ID_PART  : [\p{L}\p{N}_];
