-- The nine TPC-C tables (clause 1.3), MariaDB/MySQL dialect (InnoDB), without
-- keys: the loader adds primary keys and indexes after the data (indexes.sql).
-- Types mirror schema/postgresql/tables.sql: DECIMAL for numeric, DATETIME(6)
-- for timestamp (microseconds, as PostgreSQL keeps them).  Text is latin1 with
-- the binary collation, so comparisons and ORDER BY c_first compare bytes, as
-- PostgreSQL does in the C locale (the default collations ignore case and
-- would choose other customers by last name).

CREATE TABLE warehouse (
    w_id       INT           NOT NULL,
    w_name     VARCHAR(10)   NOT NULL,
    w_street_1 VARCHAR(20)   NOT NULL,
    w_street_2 VARCHAR(20)   NOT NULL,
    w_city     VARCHAR(20)   NOT NULL,
    w_state    CHAR(2)       NOT NULL,
    w_zip      CHAR(9)       NOT NULL,
    w_tax      DECIMAL(4,4)  NOT NULL,
    w_ytd      DECIMAL(12,2) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE district (
    d_id        SMALLINT      NOT NULL,
    d_w_id      INT           NOT NULL,
    d_name      VARCHAR(10)   NOT NULL,
    d_street_1  VARCHAR(20)   NOT NULL,
    d_street_2  VARCHAR(20)   NOT NULL,
    d_city      VARCHAR(20)   NOT NULL,
    d_state     CHAR(2)       NOT NULL,
    d_zip       CHAR(9)       NOT NULL,
    d_tax       DECIMAL(4,4)  NOT NULL,
    d_ytd       DECIMAL(12,2) NOT NULL,
    d_next_o_id INT           NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE customer (
    c_id           INT           NOT NULL,
    c_d_id         SMALLINT      NOT NULL,
    c_w_id         INT           NOT NULL,
    c_first        VARCHAR(16)   NOT NULL,
    c_middle       CHAR(2)       NOT NULL,
    c_last         VARCHAR(16)   NOT NULL,
    c_street_1     VARCHAR(20)   NOT NULL,
    c_street_2     VARCHAR(20)   NOT NULL,
    c_city         VARCHAR(20)   NOT NULL,
    c_state        CHAR(2)       NOT NULL,
    c_zip          CHAR(9)       NOT NULL,
    c_phone        CHAR(16)      NOT NULL,
    c_since        DATETIME(6)   NOT NULL,
    c_credit       CHAR(2)       NOT NULL,
    c_credit_lim   DECIMAL(12,2) NOT NULL,
    c_discount     DECIMAL(4,4)  NOT NULL,
    c_balance      DECIMAL(12,2) NOT NULL,
    c_ytd_payment  DECIMAL(12,2) NOT NULL,
    c_payment_cnt  INT           NOT NULL,
    c_delivery_cnt INT           NOT NULL,
    c_data         VARCHAR(500)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE history (
    h_c_id   INT          NOT NULL,
    h_c_d_id SMALLINT     NOT NULL,
    h_c_w_id INT          NOT NULL,
    h_d_id   SMALLINT     NOT NULL,
    h_w_id   INT          NOT NULL,
    h_date   DATETIME(6)  NOT NULL,
    h_amount DECIMAL(6,2) NOT NULL,
    h_data   VARCHAR(24)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE new_order (
    no_o_id INT      NOT NULL,
    no_d_id SMALLINT NOT NULL,
    no_w_id INT      NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE orders (
    o_id         INT         NOT NULL,
    o_d_id       SMALLINT    NOT NULL,
    o_w_id       INT         NOT NULL,
    o_c_id       INT         NOT NULL,
    o_entry_d    DATETIME(6) NOT NULL,
    o_carrier_id SMALLINT,
    o_ol_cnt     SMALLINT    NOT NULL,
    o_all_local  SMALLINT    NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE order_line (
    ol_o_id        INT          NOT NULL,
    ol_d_id        SMALLINT     NOT NULL,
    ol_w_id        INT          NOT NULL,
    ol_number      SMALLINT     NOT NULL,
    ol_i_id        INT          NOT NULL,
    ol_supply_w_id INT          NOT NULL,
    ol_delivery_d  DATETIME(6),
    ol_quantity    SMALLINT     NOT NULL,
    ol_amount      DECIMAL(6,2) NOT NULL,
    ol_dist_info   CHAR(24)     NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE item (
    i_id    INT          NOT NULL,
    i_im_id INT          NOT NULL,
    i_name  VARCHAR(24)  NOT NULL,
    i_price DECIMAL(5,2) NOT NULL,
    i_data  VARCHAR(50)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

CREATE TABLE stock (
    s_i_id       INT         NOT NULL,
    s_w_id       INT         NOT NULL,
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
    s_ytd        INT         NOT NULL,
    s_order_cnt  INT         NOT NULL,
    s_remote_cnt INT         NOT NULL,
    s_data       VARCHAR(50) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

-- What tpccbench needs to know about the load later (run, check): the NURand
-- constants of the load (C_run must differ from C_load, clause 2.1.6.1).
CREATE TABLE tpcc_meta (
    warehouses   INT         NOT NULL,
    seed         BIGINT      NOT NULL,
    c_last       INT         NOT NULL,
    c_id         INT         NOT NULL,
    ol_i_id      INT         NOT NULL,
    loaded_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;

-- The load's progress: one row per committed step, written in the step's own
-- transaction ("copy:stock:3", "index:2"), plus "plan" (the warehouses, seed
-- and date of the load).  `load --resume` skips the steps found here.
CREATE TABLE tpcc_load_step (
    step         VARCHAR(40) NOT NULL PRIMARY KEY,
    warehouses   INT         NOT NULL,
    seed         BIGINT      NOT NULL,
    n_rows       BIGINT      NOT NULL,
    load_epoch   BIGINT      NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
