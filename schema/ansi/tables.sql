-- The nine TPC-C tables (clause 1.3), generic ANSI SQL dialect: the fallback
-- for a DBMS that has no dialect of its own (schema.dialect: ansi).  Standard
-- types only, each of which the loader first finds in the DBMS's own list
-- (ODBC's SQLGetTypeInfo; a DBMS without one is refused, naming it):
-- types: INTEGER SMALLINT BIGINT NUMERIC VARCHAR CHAR TIMESTAMP
-- (NUMERIC rather than DECIMAL, its twin: SQLite's driver lists only the
-- first; SQLite keeps either as binary floating point where a value is not
-- whole, so the consistency conditions compare money to the cent.)
-- Without keys: the loader adds primary keys and indexes after the data
-- (indexes.sql).  Text compares as the DBMS's default collation does; with
-- one that ignores case, customers chosen by last name may differ from
-- PostgreSQL's (the consistency conditions do not depend on it).

CREATE TABLE warehouse (
    w_id       INTEGER       NOT NULL,
    w_name     VARCHAR(10)   NOT NULL,
    w_street_1 VARCHAR(20)   NOT NULL,
    w_street_2 VARCHAR(20)   NOT NULL,
    w_city     VARCHAR(20)   NOT NULL,
    w_state    CHAR(2)       NOT NULL,
    w_zip      CHAR(9)       NOT NULL,
    w_tax      NUMERIC(4,4)  NOT NULL,
    w_ytd      NUMERIC(12,2) NOT NULL
);

CREATE TABLE district (
    d_id        SMALLINT      NOT NULL,
    d_w_id      INTEGER       NOT NULL,
    d_name      VARCHAR(10)   NOT NULL,
    d_street_1  VARCHAR(20)   NOT NULL,
    d_street_2  VARCHAR(20)   NOT NULL,
    d_city      VARCHAR(20)   NOT NULL,
    d_state     CHAR(2)       NOT NULL,
    d_zip       CHAR(9)       NOT NULL,
    d_tax       NUMERIC(4,4)  NOT NULL,
    d_ytd       NUMERIC(12,2) NOT NULL,
    d_next_o_id INTEGER       NOT NULL
);

CREATE TABLE customer (
    c_id           INTEGER       NOT NULL,
    c_d_id         SMALLINT      NOT NULL,
    c_w_id         INTEGER       NOT NULL,
    c_first        VARCHAR(16)   NOT NULL,
    c_middle       CHAR(2)       NOT NULL,
    c_last         VARCHAR(16)   NOT NULL,
    c_street_1     VARCHAR(20)   NOT NULL,
    c_street_2     VARCHAR(20)   NOT NULL,
    c_city         VARCHAR(20)   NOT NULL,
    c_state        CHAR(2)       NOT NULL,
    c_zip          CHAR(9)       NOT NULL,
    c_phone        CHAR(16)      NOT NULL,
    c_since        TIMESTAMP     NOT NULL,
    c_credit       CHAR(2)       NOT NULL,
    c_credit_lim   NUMERIC(12,2) NOT NULL,
    c_discount     NUMERIC(4,4)  NOT NULL,
    c_balance      NUMERIC(12,2) NOT NULL,
    c_ytd_payment  NUMERIC(12,2) NOT NULL,
    c_payment_cnt  INTEGER       NOT NULL,
    c_delivery_cnt INTEGER       NOT NULL,
    c_data         VARCHAR(500)  NOT NULL
);

CREATE TABLE history (
    h_c_id   INTEGER      NOT NULL,
    h_c_d_id SMALLINT     NOT NULL,
    h_c_w_id INTEGER      NOT NULL,
    h_d_id   SMALLINT     NOT NULL,
    h_w_id   INTEGER      NOT NULL,
    h_date   TIMESTAMP    NOT NULL,
    h_amount NUMERIC(6,2) NOT NULL,
    h_data   VARCHAR(24)  NOT NULL
);

CREATE TABLE new_order (
    no_o_id INTEGER  NOT NULL,
    no_d_id SMALLINT NOT NULL,
    no_w_id INTEGER  NOT NULL
);

CREATE TABLE orders (
    o_id         INTEGER     NOT NULL,
    o_d_id       SMALLINT    NOT NULL,
    o_w_id       INTEGER     NOT NULL,
    o_c_id       INTEGER     NOT NULL,
    o_entry_d    TIMESTAMP   NOT NULL,
    o_carrier_id SMALLINT,
    o_ol_cnt     SMALLINT    NOT NULL,
    o_all_local  SMALLINT    NOT NULL
);

CREATE TABLE order_line (
    ol_o_id        INTEGER      NOT NULL,
    ol_d_id        SMALLINT     NOT NULL,
    ol_w_id        INTEGER      NOT NULL,
    ol_number      SMALLINT     NOT NULL,
    ol_i_id        INTEGER      NOT NULL,
    ol_supply_w_id INTEGER      NOT NULL,
    ol_delivery_d  TIMESTAMP  ,
    ol_quantity    SMALLINT     NOT NULL,
    ol_amount      NUMERIC(6,2) NOT NULL,
    ol_dist_info   CHAR(24)     NOT NULL
);

CREATE TABLE item (
    i_id    INTEGER      NOT NULL,
    i_im_id INTEGER      NOT NULL,
    i_name  VARCHAR(24)  NOT NULL,
    i_price NUMERIC(5,2) NOT NULL,
    i_data  VARCHAR(50)  NOT NULL
);

CREATE TABLE stock (
    s_i_id       INTEGER     NOT NULL,
    s_w_id       INTEGER     NOT NULL,
    s_quantity   SMALLINT    NOT NULL,
    s_dist_01    CHAR(24)    NOT NULL,
    s_dist_02    CHAR(24)    NOT NULL,
    s_dist_03    CHAR(24)    NOT NULL,
    s_dist_04    CHAR(24)    NOT NULL,
    s_dist_05    CHAR(24)    NOT NULL,
    s_dist_06    CHAR(24)    NOT NULL,
    s_dist_07    CHAR(24)    NOT NULL,
    s_dist_08    CHAR(24)    NOT NULL,
    s_dist_09    CHAR(24)    NOT NULL,
    s_dist_10    CHAR(24)    NOT NULL,
    s_ytd        INTEGER     NOT NULL,
    s_order_cnt  INTEGER     NOT NULL,
    s_remote_cnt INTEGER     NOT NULL,
    s_data       VARCHAR(50) NOT NULL
);

-- What tpccbench needs to know about the load later (run, check): the NURand
-- constants of the load (C_run must differ from C_load, clause 2.1.6.1).
CREATE TABLE tpcc_meta (
    warehouses   INTEGER     NOT NULL,
    seed         BIGINT      NOT NULL,
    c_last       INTEGER     NOT NULL,
    c_id         INTEGER     NOT NULL,
    ol_i_id      INTEGER     NOT NULL,
    loaded_at    TIMESTAMP   NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The load's progress: one row per committed step, written in the step's own
-- transaction ("copy:stock:3", "index:2"), plus "plan" (the warehouses, seed
-- and date of the load).  `load --resume` skips the steps found here.
CREATE TABLE tpcc_load_step (
    step         VARCHAR(40) NOT NULL PRIMARY KEY,
    warehouses   INTEGER     NOT NULL,
    seed         BIGINT      NOT NULL,
    n_rows       BIGINT      NOT NULL,
    load_epoch   BIGINT      NOT NULL
);
