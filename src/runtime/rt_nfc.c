/*
 * nfc: the NFC tag of 0.0.9.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_nfc_onFieldChanged(const rt_nfc_onFieldChanged_args_t *args)
{
	return rt_not_implemented("nfc.onFieldChanged");
}

eng_value_t rt_nfc_onWrite(const rt_nfc_onWrite_args_t *args)
{
	return rt_not_implemented("nfc.onWrite");
}

eng_value_t rt_nfc_setMsg(const rt_nfc_setMsg_args_t *args)
{
	return rt_not_implemented("nfc.setMsg");
}
