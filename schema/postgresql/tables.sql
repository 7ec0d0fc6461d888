-- The nine TPC-C tables (clause 1.3), without keys: the loader adds primary
-- keys and indexes after the data (indexes.sql), which is much faster.
-- Lower fillfactor on the tables updated in place leaves room for HOT updates.

CREATE TABLE warehouse (
    w_id       integer      NOT NULL,
    w_name     varchar(10)  NOT NULL,
    w_street_1 varchar(20)  NOT NULL,
    w_street_2 varchar(20)  NOT NULL,
    w_city     varchar(20)  NOT NULL,
    w_state    char(2)      NOT NULL,
    w_zip      char(9)      NOT NULL,
    w_tax      numeric(4,4) NOT NULL,
    w_ytd      numeric(12,2) NOT NULL
) WITH (fillfactor = 10);

CREATE TABLE district (
    d_id        smallint     NOT NULL,
    d_w_id      integer      NOT NULL,
    d_name      varchar(10)  NOT NULL,
    d_street_1  varchar(20)  NOT NULL,
    d_street_2  varchar(20)  NOT NULL,
    d_city      varchar(20)  NOT NULL,
    d_state     char(2)      NOT NULL,
    d_zip       char(9)      NOT NULL,
    d_tax       numeric(4,4) NOT NULL,
    d_ytd       numeric(12,2) NOT NULL,
    d_next_o_id integer      NOT NULL
) WITH (fillfactor = 10);

CREATE TABLE customer (
    c_id           integer      NOT NULL,
    c_d_id         smallint     NOT NULL,
    c_w_id         integer      NOT NULL,
    c_first        varchar(16)  NOT NULL,
    c_middle       char(2)      NOT NULL,
    c_last         varchar(16)  NOT NULL,
    c_street_1     varchar(20)  NOT NULL,
    c_street_2     varchar(20)  NOT NULL,
    c_city         varchar(20)  NOT NULL,
    c_state        char(2)      NOT NULL,
    c_zip          char(9)      NOT NULL,
    c_phone        char(16)     NOT NULL,
    c_since        timestamp    NOT NULL,
    c_credit       char(2)      NOT NULL,
    c_credit_lim   numeric(12,2) NOT NULL,
    c_discount     numeric(4,4) NOT NULL,
    c_balance      numeric(12,2) NOT NULL,
    c_ytd_payment  numeric(12,2) NOT NULL,
    c_payment_cnt  integer      NOT NULL,
    c_delivery_cnt integer      NOT NULL,
    c_data         varchar(500) NOT NULL
) WITH (fillfactor = 80);

CREATE TABLE history (
    h_c_id   integer      NOT NULL,
    h_c_d_id smallint     NOT NULL,
    h_c_w_id integer      NOT NULL,
    h_d_id   smallint     NOT NULL,
    h_w_id   integer      NOT NULL,
    h_date   timestamp    NOT NULL,
    h_amount numeric(6,2) NOT NULL,
    h_data   varchar(24)  NOT NULL
);

CREATE TABLE new_order (
    no_o_id integer  NOT NULL,
    no_d_id smallint NOT NULL,
    no_w_id integer  NOT NULL
);

CREATE TABLE orders (
    o_id         integer   NOT NULL,
    o_d_id       smallint  NOT NULL,
    o_w_id       integer   NOT NULL,
    o_c_id       integer   NOT NULL,
    o_entry_d    timestamp NOT NULL,
    o_carrier_id smallint,
    o_ol_cnt     smallint  NOT NULL,
    o_all_local  smallint  NOT NULL
);

CREATE TABLE order_line (
    ol_o_id        integer      NOT NULL,
    ol_d_id        smallint     NOT NULL,
    ol_w_id        integer      NOT NULL,
    ol_number      smallint     NOT NULL,
    ol_i_id        integer      NOT NULL,
    ol_supply_w_id integer      NOT NULL,
    ol_delivery_d  timestamp,
    ol_quantity    smallint     NOT NULL,
    ol_amount      numeric(6,2) NOT NULL,
    ol_dist_info   char(24)     NOT NULL
);

CREATE TABLE item (
    i_id    integer      NOT NULL,
    i_im_id integer      NOT NULL,
    i_name  varchar(24)  NOT NULL,
    i_price numeric(5,2) NOT NULL,
    i_data  varchar(50)  NOT NULL
);

CREATE TABLE stock (
    s_i_id       integer     NOT NULL,
    s_w_id       integer     NOT NULL,
    s_quantity   smallint    NOT NULL,
    s_dist_01    char(24)    NOT NULL,
    s_dist_02    char(24)    NOT NULL,
    s_dist_03    char(24)    NOT NULL,
    s_dist_04    char(24)    NOT NULL,
    s_dist_05    char(24)    NOT NULL,
    s_dist_06    char(24)    NOT NULL,
    s_dist_07    char(24)    NOT NULL,
    s_dist_08    char(24)    NOT NULL,
    s_dist_09    char(24)    NOT NULL,
    s_dist_10    char(24)    NOT NULL,
    s_ytd        integer     NOT NULL,
    s_order_cnt  integer     NOT NULL,
    s_remote_cnt integer     NOT NULL,
    s_data       varchar(50) NOT NULL
) WITH (fillfactor = 80);

-- What tpccbench needs to know about the load later (run, check): the NURand
-- constants of the load (C_run must differ from C_load, clause 2.1.6.1).
CREATE TABLE tpcc_meta (
    warehouses   integer   NOT NULL,
    seed         bigint    NOT NULL,
    c_last       integer   NOT NULL,
    c_id         integer   NOT NULL,
    ol_i_id      integer   NOT NULL,
    loaded_at    timestamp NOT NULL DEFAULT now()
);

-- The load's progress: one row per committed step, written in the step's own
-- transaction ("copy:stock:3", "index:2"), plus "plan" (the warehouses, seed
-- and date of the load).  `load --resume` skips the steps found here.
-- load_part: the part of a load of several that committed it (0: a load of
-- one process; see load_parts.sql).
CREATE TABLE tpcc_load_step (
    step         varchar(40) NOT NULL PRIMARY KEY,
    warehouses   integer     NOT NULL,
    seed         bigint      NOT NULL,
    n_rows       bigint      NOT NULL,
    load_epoch   bigint      NOT NULL,
    load_part    integer     NOT NULL DEFAULT 0
);
