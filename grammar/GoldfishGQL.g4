// GoldfishGQL: the goldfish subset of ISO GQL, plus enough of the rest of
// GQL and of Cypher to name what the planner refuses (RETURN, ORDER BY,
// CASE, EXISTS, path search prefixes, catalog statements, ...).
//
// Design rules, kept so SLL prediction never needs full-context retries:
//  - one rule per precedence level (loops, no left recursion); expressions
//    and label expressions are flat lists the builder gives precedence to;
//  - the rules every statement goes through choose their alternative by
//    one token of lookahead (the generated code switches on it, with no
//    call to the prediction machinery); refused forms may take more;
//  - labels and property keys accept every keyword (anyName); variables
//    accept the soft keywords (varName, and exprVarName in expressions)
//    but those that start another alternative where a variable could
//    stand: EXISTS, DATE, the words that start a path prefix (ANY, TRAIL,
//    …), NOT, …; CASE, TIME and the like are read as variables by the
//    rule of their own alternative (primary);
//  - arrows are built from single-character tokens, so `a<-1` stays an
//    expression and patterns never need lookahead inside a token;
//  - a clause outside the subset is read as its keyword and the rest of
//    the statement (refusedTail): the planner refuses it by name whatever
//    follows, so the grammar need not know all of it. Forms outside the
//    subset that can sit inside a subset clause (CASE, EXISTS { }, list
//    comprehensions, path prefixes, ...) are read in full, or as balanced
//    brackets, where they stand.
//
// A few texts read two ways, and SLL takes the first alternative without
// a retry: `(a)-(b)` or `(a)-[r]-(b)` in an expression is a pattern
// predicate (Cypher's reading), not arithmetic on elements, which could
// only fail; `[x IN l]` is a list comprehension (Cypher's reading), not a
// list holding one boolean. Inside a refused form (a parenthesised path, a
// list or a type after IS ::) prediction may look further ahead, but
// never past the form's closing bracket: no expression is ever followed
// by '|', so the '|' of x:A|B is decided by one token.
//
// Regenerate parser/gen with scripts/gen-parser.sh; never edit parser/gen.
grammar GoldfishGQL;

options { caseInsensitive = true; }

// ---------------------------------------------------------------- statements

script
    : statement? (SEMI statement?)* EOF
    ;

// Each alternative starts with its own token, so this and the other
// rules on every statement's path (clause, primary, edgePattern) choose by
// one token of lookahead, without a call to the prediction machinery.
statement
    : START ( TRANSACTION txMode? (COMMA? ISOLATION refusedTail)?
            | ~(TRANSACTION | SEMI | UNTERMINATED_COMMENT) refusedTail )  # startTx
    | COMMIT WORK?                                        # commitTx
    | ROLLBACK (WORK? | TO refusedTail)                   # rollbackTx
    | clause+                                             # queryStmt
    ;

txMode
    : READ (ONLY | WRITE)
    ;

qualifiedName
    : varName (DOT anyName)*
    ;

clause
    // MATCH … YIELD (GQL's graph pattern yield, refused)
    : MATCH matchMode? pathPatterns (WHERE expr)? (YIELD refusedTail)?  # matchClause
    | LIMIT expr                                          # limitClause
    | INSERT pathPatterns                                 # insertClause
    | SET setItem (COMMA setItem)*                        # setClause
    | REMOVE removeItem (COMMA removeItem)*               # removeClause
    | (DETACH | NODETACH)? DELETE expr (COMMA expr)*      # deleteClause
    // CALL name(args) alone is an action; anything else is refused.
    // CALL name(args) WHERE … and CALL name = value (Kuzu) are refused.
    | CALL ( qualifiedName ( (LPAREN actionArgs? RPAREN)? ((YIELD | WHERE) refusedTail)?
                           | EQ refusedTail )
           | (LBRACE | LPAREN) refusedTail )              # callClause
    // CREATE [OR REPLACE] VIEW|ACTION and DROP VIEW|ACTION register the
    // session's vocabulary; any other CREATE or DROP is refused.
    | CREATE createBody                                   # createClause
    | DROP dropBody                                       # dropClause
    // recognised, refused by the planner
    | refusedWord refusedTail                             # refusedClause
    ;

refusedWord
    : RETURN | WITH | ORDER | SKIP_ | OFFSET | UNWIND | MERGE
    | FILTER | LET | FOR | UNION | OPTIONAL | NEXT | FINISH | GROUP | HAVING
    | INTERSECT | EXCEPT | OTHERWISE | FOREACH | LOAD | USE | SESSION
    | SHOW | EXPLAIN | PROFILE | SELECT | ALTER | GRANT | REVOKE | DENY
    | KEEP | TERMINATE | STOP | RENAME | GRAPH | SAVEPOINT | RELEASE | USING | AT
    ;

// CREATE [OR REPLACE] VIEW name [INTENT '…'] AS '<CEL>'
// CREATE [OR REPLACE] ACTION name(p TYPE [= default], …) [INTENT '…']
//   [IF '<CEL>'] { statements }
// The body's tokens are kept as they are (balanced on braces only): the
// builder parses the body's text as a script of its own, so its
// statements are read, and refused, as any statement is.
createBody
    : (OR REPLACE)? ( VIEW anyName (INTENT STRING)? AS STRING
                    | ACTION anyName LPAREN (actionParam (COMMA actionParam)*)? RPAREN
                      (INTENT STRING)? (IF STRING)? LBRACE actionBody RBRACE
                    | (~(VIEW | ACTION | OR | SEMI | UNTERMINATED_COMMENT) refusedTail)? )
    ;

actionParam
    : varName anyName (EQ expr)?
    ;

actionBody
    : (~(LBRACE | RBRACE | UNTERMINATED_COMMENT) | LBRACE actionBody RBRACE)*
    ;

dropBody
    : (VIEW | ACTION) anyName
    | (~(VIEW | ACTION | SEMI | UNTERMINATED_COMMENT) refusedTail)?
    ;

// CALL's arguments: positional, or named (p: value).
actionArgs
    : actionArg (COMMA actionArg)*
    ;

actionArg
    : (anyName COLON)? expr
    ;

// The rest of a refused statement: any tokens up to ';'. An unterminated
// comment is left for the parser to report.
refusedTail
    : (~(SEMI | UNTERMINATED_COMMENT))*
    ;

// Brackets of a refused form (EXISTS { … }, COUNT { … }, n {.a}) that
// are skipped as long as they balance.
balanced
    : ( ~(LPAREN | RPAREN | LBRACE | RBRACE | LBRACK | RBRACK | SEMI | UNTERMINATED_COMMENT)
      | LPAREN balanced RPAREN
      | LBRACE balanced RBRACE
      | LBRACK balanced RBRACK
      )*
    ;

// Items are left-factored on the variable so every choice is LL(1).
// n[$key] = value (Cypher's dynamic property, refused)
setItem
    : varName (DOT anyName EQ expr | (EQ | PLUSEQ) (mapLiteral | PARAM) | labelSpec | LBRACK expr RBRACK EQ expr)
    ;

removeItem
    : varName (DOT anyName | labelSpec)
    ;

// ------------------------------------------------------------------ patterns

// DIFFERENT EDGES, REPEATABLE ELEMENTS (refused)
matchMode
    : (DIFFERENT | REPEATABLE) anyName BINDINGS?
    ;

pathPatterns
    : pathPattern (COMMA pathPattern)*
    ;

// p = ANY SHORTEST (a)-[:T]->(b); shortestPath((a)-[*]-(b)) (refused).
// Two factors may touch without an edge where one is a parenthesised path,
// (a) ((x)-[:T]->(y)){2} (b); alternatives follow | (union) or |+|
// (multiset); a bare variable (MATCH n) is Cypher 1's node: all refused.
// Written out in full rather than through sub-rules, so that a pattern
// costs no context it does not need, and every choice on the way is made
// by one token (the path prefix words are not variables for that reason).
pathPattern
    : varName ( EQ ( pathPrefix? ( edgePattern (pathFactor (edgePattern? pathFactor)*)?
                                 | pathFactor (edgePattern? pathFactor)* )
                     (PIPE (PLUS PIPE)? pathBody)*
                   | varName LPAREN pathPattern RPAREN )
              | LPAREN pathPattern RPAREN )?
    | pathPrefix? ( edgePattern (pathFactor (edgePattern? pathFactor)*)?
                  | pathFactor (edgePattern? pathFactor)* )
      (PIPE (PLUS PIPE)? pathBody)*
    ;

// Node patterns and edges in turn, after a | (refused).
pathBody
    : edgePattern (pathFactor (edgePattern? pathFactor)*)?
    | pathFactor (edgePattern? pathFactor)*
    ;

// Path search prefixes and path modes (ANY, ALL SHORTEST, SHORTEST 2
// GROUPS, TRAIL, ACYCLIC PATHS, ...), all refused; the builder names them.
pathPrefix
    : (ANY | ALL | SHORTEST | CHEAPEST | WALK | TRAIL | SIMPLE | ACYCLIC)
      (ANY | ALL | SHORTEST | CHEAPEST | WALK | TRAIL | SIMPLE | ACYCLIC | PATH | PATHS
      | GROUP | GROUPS | INTEGER | PARAM)*
    ;

// A node pattern (a:A {k: 1} WHERE …), or a parenthesised path
// ((a)-[:T]->(b) WHERE …){1,3} (refused): one rule, so that the token
// after '(' (or after its variable) tells them apart.
pathFactor
    : LPAREN ( varName ( EQ pathPrefix? parenBody (PIPE (PLUS PIPE)? parenBody)* (WHERE expr)?
                       | labelSpec? (mapLiteral | PARAM)? (WHERE expr)? )
             | pathPrefix? parenBody (PIPE (PLUS PIPE)? parenBody)* (WHERE expr)?
             | labelSpec? (mapLiteral | PARAM)? (WHERE expr)? )
      RPAREN quantifier?
    ;

// Inside parentheses a path may also end with an edge.
parenBody
    : edgePattern (pathFactor (edgePattern? pathFactor)* edgePattern?)?
    | pathFactor (edgePattern? pathFactor)* edgePattern?
    ;

nodePattern
    : LPAREN varName? labelSpec? (mapLiteral | PARAM)? (WHERE expr)? RPAREN
    ;

// :A:B, :A&B, :A|B, :!A, :%, :(A|B)&C, IS A&B, :$(expr). The builder
// decides which forms a position accepts. Flat: factors and operators in
// written order; the builder gives & precedence over |, and joins what
// Cypher's :A:B separates with AND last (:A|B:C is (A|B)&C, as x:A|B:C
// reads in an expression). labelExpr is the same inside parentheses.
labelSpec
    : (COLON | IS) (anyName | labelFactor) ((AMP | PIPE COLON? | COLON) (anyName | labelFactor))*
    ;

labelExpr
    : (anyName | labelFactor) ((AMP | PIPE COLON? | COLON) (anyName | labelFactor))*
    ;

// Everything but a plain name, which the rules above take directly (one
// context fewer for the common :Label).
labelFactor
    : BANG (anyName | labelFactor)
    | PERCENT
    | LPAREN labelExpr RPAREN
    | (DOLLAR | PARAM) LPAREN expr RPAREN
    ;

// The same after IS in an expression, where the first name may not be a
// word IS takes for another test (NULL, TRUE, NORMALIZED, ...).
isLabelExpr
    : (isLabelName | labelFactor) ((AMP | PIPE COLON?) (anyName | labelFactor))*
    ;

// -[ ]->, <-[ ]-, -[ ]-, <-[ ]-> and their abbreviations; ~[ ]~, <~[ ]~
// and ~[ ]~> (undirected, refused).
//
// -[e:T]{2}(b) has a quantifier right after the bracket (refused). Two '-'
// in a row come only from the Cypher reading of "--" (see arrowSource).
// -/:T/-> and the other simplified path patterns are refused.
edgePattern
    : LT ( MINUS ( SLASH simplifiedBody SLASH MINUS GT?
                 | (LBRACK edgeBody RBRACK MINUS | MINUS)? GT? quantifier? )
         | TILDE ( SLASH simplifiedBody SLASH TILDE
                 | (LBRACK edgeBody RBRACK TILDE)? quantifier? ) )           # edgeIn
    | MINUS ( SLASH simplifiedBody SLASH MINUS GT?
            | (LBRACK edgeBody RBRACK (MINUS GT?)? | MINUS GT? | GT)? quantifier? )  # edgeOutOrBoth
    | TILDE ( SLASH simplifiedBody SLASH TILDE GT?
            | (LBRACK edgeBody RBRACK TILDE)? GT? quantifier? )             # edgeTilde
    ;

simplifiedBody
    : (~(SLASH | SEMI | UNTERMINATED_COMMENT))*
    ;

// COST is Spanner's weight for ANY CHEAPEST (refused).
edgeBody
    : varName? labelSpec? cypherQuantifier? (mapLiteral | PARAM)? (WHERE expr)? (COST expr)?
    ;

// *, *2, *1..3, and Kuzu's * SHORTEST 1..3, * ALL SHORTEST 1..3
cypherQuantifier
    : STAR (ALL? SHORTEST)? (INTEGER? (DOTDOT INTEGER?)?)
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
    | EQ | NEQ | NEQ2 | LT | LE | GT | GE | IN | CONTAINS | REGEX
    | NOT? (BETWEEN | LIKE)
    | PLUS | MINUS | CONCAT | STAR | SLASH | PERCENT | CARET
    ;

// operand: prefix operators, a primary, property accesses, subscripts and
// (refused) calls of qualified names such as apoc.coll.sum(x).
operand
    : (NOT | MINUS | PLUS)* primary (DOT anyName callArgs? | LBRACK expr? (DOTDOT expr?)? RBRACK)*
    ;

// IS NOT? NULL, IS NOT? TRUE|FALSE|UNKNOWN, IS NOT? LABELED? Label,
// :Label, and the IS tests outside the subset.
exprTail
    : IS NOT? ( NULL | TRUE | FALSE | UNKNOWN | DIRECTED
              | (NFC | NFD | NFKC | NFKD)? NORMALIZED
              | (TYPED | COLONCOLON) typeRef
              | (SOURCE | DESTINATION) OF operand
              | LABELED? isLabelExpr
              )
    | COLON (anyName | labelFactor) ((AMP | PIPE COLON?) (anyName | labelFactor))*
    ;

// A value type after IS ::, IS TYPED or CAST(… AS …) (all refused).
typeRef
    : ((LOCAL | ZONED) (DATETIME | TIME) | anyName) (LT typeRef (COMMA typeRef)* GT)? (NOT NULL)?
      (PIPE typeRef)*
    ;

primary
    : (INTEGER | FLOAT | STRING | TRUE | FALSE | NULL)    # literalPrimary
    | (DATE | DATETIME) (STRING | callArgs)               # temporalPrimary
    // TIME '…', time(…) and the variable time; likewise the others
    | (TIME | TIMESTAMP | DURATION) (STRING | callArgs)?  # timePrimary
    | (LOCAL | ZONED) ((DATETIME | TIME) STRING | callArgs)?  # timePrimary
    | PARAM                                               # paramPrimary
    // LIST [a, b] and ARRAY [a, b] (ISO) are the list [a, b]; alone,
    // the variable list or array
    | (LIST | ARRAY) (LBRACK exprList? RBRACK)?           # listPrimary
    // [a, b], and the comprehensions [x IN l WHERE … | …]
    | LBRACK ( exprVarName IN operand ((WHERE | PIPE) balanced)?
             | (exprVarName EQ)? LPAREN varName? labelSpec? (mapLiteral | PARAM)? (WHERE expr)? RPAREN
               (edgePattern nodePattern)+ ((WHERE | PIPE) balanced)?
             | exprList )? RBRACK                         # listPrimary
    | mapLiteral                                          # mapPrimary
    // a CASE expression, or the variable case
    | CASE (expr? caseWhen+ (ELSE expr)? END)?            # casePrimary
    | EXISTS (LBRACE balanced RBRACE | LPAREN balanced RPAREN)  # existsPrimary
    | DOLLAR LPAREN expr RPAREN                           # dynamicPrimary
    // v, f(args), and COUNT { … }, COLLECT { … }, n {.a} (refused)
    | exprVarName (callArgs | LBRACE balanced RBRACE)?    # varPrimary
    // a pattern predicate (a)-[:T]->(b) (refused), or (expr); the pattern
    // first, so that (a)-[r]-(b), which reads both ways, is the pattern
    | LPAREN ( varName? labelSpec? (mapLiteral | PARAM)? (WHERE expr)? RPAREN (edgePattern nodePattern)+
             | expr RPAREN )                              # parenPrimary
    ;

caseWhen
    : WHEN whenOperand (COMMA whenOperand)* THEN expr
    ;

whenOperand
    : (EQ | NEQ | NEQ2 | LT | LE | GT | GE)? expr
    | exprTail
    ;

// f(args), f(*), f(DISTINCT x), all(x IN l WHERE …), reduce(s = 0, x IN l
// | …), CAST(x AS INTEGER): after a name, so primary stays LL(1).
callArgs
    : LPAREN (STAR | DISTINCT? callArg (COMMA callArg)*)? RPAREN
    ;

// all(x IN l WHERE …), reduce(s = 0, x IN l | …), CAST(x AS T): the
// function is refused in any case, so what follows WHERE, | or AS is
// skipped as balanced brackets, and no expression is ever followed by '|'
// (nor is one in a list comprehension): the '|' of x:A|B in an expression
// is then decided by one token.
callArg
    : exprVarName IN operand ((WHERE | PIPE) argTail)?
    | expr (AS argTail)?
    ;

// balanced, up to the ',' or ')' that ends the argument
argTail
    : ( ~(LPAREN | RPAREN | LBRACE | RBRACE | LBRACK | RBRACK | COMMA | SEMI | UNTERMINATED_COMMENT)
      | LPAREN balanced RPAREN
      | LBRACE balanced RBRACE
      | LBRACK balanced RBRACK
      )*
    ;

mapLiteral
    : LBRACE (mapEntry (COMMA mapEntry)*)? RBRACE
    ;

// A key is a name, or a double-quoted delimited identifier (ISO).
mapEntry
    : (anyName | STRING) COLON expr
    ;

// --------------------------------------------------------------------- names
//
// Each name rule lists its tokens directly (no nested rules): one context
// per name.

// Variables: identifiers and the soft keywords.
varName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING | START
    | NEXT | FINISH | GROUP | HAVING | INTERSECT | EXCEPT | OTHERWISE | FOREACH
    | LOAD | USE | SESSION | DROP | SHOW | EXPLAIN | PROFILE | SELECT | ALTER
    | GRANT | REVOKE | DENY | KEEP | TERMINATE | STOP | RENAME
    | PATH | PATHS | GROUPS
    | CASE | WHEN | THEN | ELSE | END | UNKNOWN | NORMALIZED | NFC | NFD | NFKC | NFKD
    | TYPED | DIRECTED | SOURCE | DESTINATION | OF
    | TIME | TIMESTAMP | DURATION | LOCAL | ZONED | READ | ONLY | WRITE | WORK
    | GRAPH | SAVEPOINT | RELEASE | TO | ISOLATION | BETWEEN | LIKE | USING | AT
    | LIST | ARRAY
    | VIEW | ACTION | INTENT | REPLACE | IF
    ;

// A variable in an expression: the soft keywords but those that start a
// primary of their own (TIME '…', LOCAL DATETIME '…', CASE …), which
// primary reads as variables itself.
exprVarName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING | START | ALL
    | NEXT | FINISH | GROUP | HAVING | INTERSECT | EXCEPT | OTHERWISE | FOREACH
    | LOAD | USE | SESSION | DROP | SHOW | EXPLAIN | PROFILE | SELECT | ALTER
    | GRANT | REVOKE | DENY | KEEP | TERMINATE | STOP | RENAME
    | ANY | PATH | PATHS | GROUPS
    | BINDINGS
    | WHEN | THEN | ELSE | END | UNKNOWN | NORMALIZED | NFC | NFD | NFKC | NFKD
    | TYPED | DIRECTED | SOURCE | DESTINATION | OF
    | READ | ONLY | WRITE | WORK
    | GRAPH | SAVEPOINT | RELEASE | TO | ISOLATION | BETWEEN | LIKE | USING | AT
    | VIEW | ACTION | INTENT | REPLACE | IF
    ;

// A label after IS in an expression: any name but the words IS takes for
// its other tests (NULL, NOT, LABELED, TRUE, FALSE, UNKNOWN, DIRECTED,
// NORMALIZED, TYPED).
isLabelName
    : ID | QUOTED_ID
    | TRANSACTION | BY | ASC | ASCENDING | DESC | DESCENDING
    | MATCH | OPTIONAL | WHERE | LIMIT | INSERT | SET | REMOVE | DETACH
    | NODETACH | DELETE | START | COMMIT | ROLLBACK | CALL | YIELD | RETURN
    | ORDER | SKIP_ | OFFSET | WITH | UNWIND | CREATE | MERGE | FILTER | LET
    | FOR | UNION | ALL | DISTINCT | AS | ON | OR | XOR | AND | IN | STARTS
    | ENDS | CONTAINS | IS | DATE | DATETIME
    | NEXT | FINISH | GROUP | HAVING | INTERSECT | EXCEPT | OTHERWISE | FOREACH
    | LOAD | USE | SESSION | DROP | SHOW | EXPLAIN | PROFILE | SELECT | ALTER
    | GRANT | REVOKE | DENY | KEEP | TERMINATE | STOP | RENAME
    | ANY | SHORTEST | WALK | TRAIL | SIMPLE | ACYCLIC | PATH | PATHS | GROUPS
    | DIFFERENT | REPEATABLE | BINDINGS
    | CASE | WHEN | THEN | ELSE | END | EXISTS | NFC | NFD | NFKC | NFKD
    | SOURCE | DESTINATION | OF
    | TIME | TIMESTAMP | DURATION | LOCAL | ZONED | READ | ONLY | WRITE | WORK
    | GRAPH | SAVEPOINT | RELEASE | TO | ISOLATION | BETWEEN | LIKE | CHEAPEST | COST
    | USING | AT | LIST | ARRAY
    | VIEW | ACTION | INTENT | REPLACE | IF
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
    | NEXT | FINISH | GROUP | HAVING | INTERSECT | EXCEPT | OTHERWISE | FOREACH
    | LOAD | USE | SESSION | DROP | SHOW | EXPLAIN | PROFILE | SELECT | ALTER
    | GRANT | REVOKE | DENY | KEEP | TERMINATE | STOP | RENAME
    | ANY | SHORTEST | WALK | TRAIL | SIMPLE | ACYCLIC | PATH | PATHS | GROUPS
    | DIFFERENT | REPEATABLE | BINDINGS
    | CASE | WHEN | THEN | ELSE | END | EXISTS | UNKNOWN | NORMALIZED
    | NFC | NFD | NFKC | NFKD | TYPED | DIRECTED | SOURCE | DESTINATION | OF
    | TIME | TIMESTAMP | DURATION | LOCAL | ZONED | READ | ONLY | WRITE | WORK
    | GRAPH | SAVEPOINT | RELEASE | TO | ISOLATION | BETWEEN | LIKE | CHEAPEST | COST
    | USING | AT | LIST | ARRAY
    | VIEW | ACTION | INTENT | REPLACE | IF
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

// Words of the forms outside the subset, recognised to be refused by name.
NEXT        : 'NEXT';
FINISH      : 'FINISH';
GROUP       : 'GROUP';
HAVING      : 'HAVING';
INTERSECT   : 'INTERSECT';
EXCEPT      : 'EXCEPT';
OTHERWISE   : 'OTHERWISE';
FOREACH     : 'FOREACH';
LOAD        : 'LOAD';
USE         : 'USE';
SESSION     : 'SESSION';
DROP        : 'DROP';
SHOW        : 'SHOW';
EXPLAIN     : 'EXPLAIN';
PROFILE     : 'PROFILE';
SELECT      : 'SELECT';
ALTER       : 'ALTER';
GRANT       : 'GRANT';
REVOKE      : 'REVOKE';
DENY        : 'DENY';
KEEP        : 'KEEP';
TERMINATE   : 'TERMINATE';
STOP        : 'STOP';
RENAME      : 'RENAME';
ANY         : 'ANY';
SHORTEST    : 'SHORTEST';
WALK        : 'WALK';
TRAIL       : 'TRAIL';
SIMPLE      : 'SIMPLE';
ACYCLIC     : 'ACYCLIC';
PATH        : 'PATH';
PATHS       : 'PATHS';
GROUPS      : 'GROUPS';
DIFFERENT   : 'DIFFERENT';
REPEATABLE  : 'REPEATABLE';
BINDINGS    : 'BINDINGS';
CASE        : 'CASE';
WHEN        : 'WHEN';
THEN        : 'THEN';
ELSE        : 'ELSE';
END         : 'END';
EXISTS      : 'EXISTS';
UNKNOWN     : 'UNKNOWN';
NORMALIZED  : 'NORMALIZED';
NFC         : 'NFC';
NFD         : 'NFD';
NFKC        : 'NFKC';
NFKD        : 'NFKD';
TYPED       : 'TYPED';
DIRECTED    : 'DIRECTED';
SOURCE      : 'SOURCE';
DESTINATION : 'DESTINATION';
OF          : 'OF';
TIME        : 'TIME';
TIMESTAMP   : 'TIMESTAMP';
DURATION    : 'DURATION';
LOCAL       : 'LOCAL';
ZONED       : 'ZONED';
READ        : 'READ';
ONLY        : 'ONLY';
WRITE       : 'WRITE';
WORK        : 'WORK';
GRAPH       : 'GRAPH';
SAVEPOINT   : 'SAVEPOINT';
RELEASE     : 'RELEASE';
TO          : 'TO';
ISOLATION   : 'ISOLATION';
BETWEEN     : 'BETWEEN';
LIKE        : 'LIKE';
CHEAPEST    : 'CHEAPEST';
COST        : 'COST';
USING       : 'USING';
AT          : 'AT';
LIST        : 'LIST';
ARRAY       : 'ARRAY';
VIEW        : 'VIEW';
ACTION      : 'ACTION';
INTENT      : 'INTENT';
REPLACE     : 'REPLACE';
IF          : 'IF';

LPAREN     : '(';
RPAREN     : ')';
LBRACK     : '[';
RBRACK     : ']';
LBRACE     : '{';
RBRACE     : '}';
COMMA      : ',';
SEMI       : ';';
COLONCOLON : '::';
COLON      : ':';
DOTDOT     : '..';
DOT        : '.';
PLUSEQ     : '+=';
REGEX      : '=~';
EQ         : '=';
NEQ        : '<>';
NEQ2       : '!=';
LE         : '<=';
GE         : '>=';
LT         : '<';
GT         : '>';
PLUS       : '+';
MINUS      : '-';
STAR       : '*';
SLASH      : '/';
PERCENT    : '%';
CARET      : '^';
CONCAT     : '||';
PIPE       : '|';
AMP        : '&';
QMARK      : '?';
BANG       : '!';
TILDE      : '~';

// Escapes are checked (and decoded) by the builder, so a bad escape is
// reported at its own position instead of as an unterminated string.
STRING
    : '\'' (~['\\] | '\\' . | '\'\'')* '\''
    | '"' (~["\\] | '\\' . | '""')* '"'
    ;

FLOAT
    : DIGITS '.' DIGITS EXPONENT?
    | '.' DIGITS EXPONENT?
    | DIGITS EXPONENT
    ;

// Decimal, 0x hexadecimal, 0o octal and 0b binary, with '_' between digits
// (ISO GQL); the builder converts them.
INTEGER
    : DIGITS
    | '0X' '_'? HEX_DIGIT ('_'? HEX_DIGIT)*
    | '0O' '_'? [0-7] ('_'? [0-7])*
    | '0B' '_'? [01] ('_'? [01])*
    ;

PARAM : '$' (ID_START ID_PART* | DIGIT+);

// A '$' without a name: the start of a dynamic label, $(expr).
DOLLAR : '$';

ID : ID_START ID_PART*;

QUOTED_ID : '`' (~'`' | '``')* '`';

// Line comments stay on the hidden channel, so that a "--" that was more
// likely a Cypher arrow can be read again as one (parser.arrowSource).
LINE_COMMENT  : ('//' | '--') ~[\r\n]* -> channel(HIDDEN);
BLOCK_COMMENT : '/*' .*? '*/' -> skip;
// A comment still open at the end of the text: a token the parser never
// expects, reported as "unterminated comment".
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF;
WS            : [ \t\r\n\f]+ -> skip;

fragment DIGIT     : [0-9];
fragment DIGITS    : DIGIT ('_'? DIGIT)*;
fragment HEX_DIGIT : [0-9A-F];
fragment EXPONENT  : 'E' [+-]? DIGITS;
fragment ID_START  : [\p{L}_];
fragment ID_PART   : [\p{L}\p{N}_];
