// What the store implements comes with it: a file that imports StoreDeskSQLite sees the protocols and
// values of StoreDeskStoreAPI (UserSearch, StoreError, ListPager, ...) without a second import.
@_exported import StoreDeskStoreAPI
